import { Type } from '../kit';
import { dashboardConfigSchema, sessionChallengeRequestSchema, sessionChallengeSchema, sessionInfoSchema, sessionStartRequestSchema } from '../http';
import { ORIGIN_MISMATCH, PAYMENT_REQUIRED, UNAVAILABLE, operation, problem, type ResponseHeader } from './operation';

// The dashboard's browser sessions (docs/dashboard.md): sign-in sets an HttpOnly session
// cookie, and `/api/live/<path>` then serves every `/api/v1/<path>` operation for the
// session's key. Every `/api/live` request must come from the dashboard's page (403
// origin_mismatch otherwise). Not for API clients.

const setCookie = (description: string): Record<string, ResponseHeader> => ({ 'Set-Cookie': { description, schema: Type.String() } });

export const sessionOperations = {
  getDashboardConfig: operation({
    method: 'get',
    path: '/api/live/config',
    tags: ['session'],
    summary: "The dashboard page's settings",
    description:
      'No session needed: the RPC a wallet payment goes through (`PUBLIC_RPC_URL`; null: Solana Pay only) and the API\'s public origin (`PUBLIC_ORIGIN`), the domain its signed subscribe messages name.',
    access: 'public',
    cost: 0,
    responses: { 200: { description: 'Settings', content: { 'application/json': dashboardConfigSchema } }, 403: ORIGIN_MISMATCH },
  }),
  startSessionChallenge: operation({
    method: 'post',
    path: '/api/live/session/challenge',
    tags: ['session'],
    summary: 'A Sign-In With Solana message for a wallet, valid 5 minutes',
    description:
      "The message names the site (`PUBLIC_ORIGIN`: its host as the domain, the origin as the URI; never the request's Host header). Its nonce is a MAC: nothing is stored until it signs in.",
    access: 'public',
    cost: 1,
    body: sessionChallengeRequestSchema,
    responses: { 200: { description: 'The message to sign', content: { 'application/json': sessionChallengeSchema } }, 403: ORIGIN_MISMATCH },
  }),
  startSession: operation({
    method: 'post',
    path: '/api/live/session',
    tags: ['session'],
    summary: 'Sign in: a session cookie for an API key or a wallet signature',
    description:
      '`{ apiKey }`: the key is checked as a Bearer request would be (same failure limits), never echoed nor stored in the cookie. `{ wallet, message, signatureBase64 }`: the wallet\'s ed25519 signature of a challenge, a session for the wallet\'s active key. A message signs in once, on any replica. The cookie is HttpOnly and SameSite=Strict (`__Host-gridlab_session` for an https `PUBLIC_ORIGIN`, `gridlab_session` for plain http) and lives `SESSION_TTL_S` (12 h) or until the key\'s paid period ends, whichever is first.',
    access: 'public',
    cost: 1,
    body: sessionStartRequestSchema,
    responses: {
      201: { description: 'Signed in', headers: setCookie('the session cookie'), content: { 'application/json': sessionInfoSchema } },
      401: problem('missing_api_key | invalid_api_key | invalid_signature (a bad, foreign, altered, expired or already used sign-in message)'),
      402: PAYMENT_REQUIRED,
      403: ORIGIN_MISMATCH,
      404: problem('no_subscription: the wallet has no active API key (subscribe first)'),
      503: UNAVAILABLE,
    },
  }),
  getSession: operation({
    method: 'get',
    path: '/api/live/session',
    tags: ['session'],
    summary: 'The current session',
    access: 'session',
    cost: 1,
    responses: {
      200: { description: 'The session', content: { 'application/json': sessionInfoSchema } },
      403: ORIGIN_MISMATCH,
      503: problem('session_check_unavailable: whether the session was signed out cannot be checked now (Retry-After)'),
    },
  }),
  endSession: operation({
    method: 'delete',
    path: '/api/live/session',
    tags: ['session'],
    summary: 'Sign out every dashboard session of the subscription',
    description:
      'The cookie is cleared whatever happens. `204` once billing has raised the subscriber\'s session epoch: every session of the subscription, every copy of its cookie, on every replica, is over (a copy answers `401 session_required`) and its open streams and dumps close. A session already over asks billing nothing.',
    access: 'public',
    cost: 1,
    responses: {
      204: { description: 'Signed out', headers: setCookie('the cleared session cookie') },
      403: ORIGIN_MISMATCH,
      503: problem('sign_out_incomplete: the sign-out could not be recorded; `detail` says until when a copy of the cookie still works (signing in and out again ends it)'),
    },
  }),
} as const;
