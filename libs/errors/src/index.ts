/**
 * Business errors shared by every package. Each has a stable `code` (documented in the
 * OpenAPI file) and says whether retrying can help. Domain and app code throw these;
 * each transport (HTTP middleware, NATS reply, JetStream consumer) translates them in
 * exactly one place.
 */
export {
  GridlabError,
  InputError,
  NotFoundError,
  ConflictError,
  UnavailableError,
  ChainError,
  ConfigError,
  DecodeError,
  AuthError,
  ForbiddenError,
  PaymentRequiredError,
  RateLimitedError,
  TimeoutError,
  GoneError,
  UnprocessableError,
  HTTP_STATUS,
  errorFromWire,
  type ErrorKind,
  type FieldError,
  isGridlabError,
} from './errors';
