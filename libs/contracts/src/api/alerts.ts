import { Type } from '../kit';
import {
  alertCreateBodySchema,
  alertCreatedReplySchema,
  alertDeleteReplySchema,
  alertDeliveriesReplySchema,
  alertListReplySchema,
  alertRedeliverReplySchema,
  alertReplySchema,
  alertSecretReplySchema,
  alertTestReplySchema,
  alertUpdateBodySchema,
} from '../alerts';
import { operation, problem, published, TIMEOUT, UNAVAILABLE } from './operation';

// Alert rules and their webhooks, answered by the notifier over NATS; the key's
// subscriber owns them.

const alertId = { path: Type.Object({ id: Type.String({ description: 'Alert id (alr_ + 22 base58 characters); anything else answers 404' }) }) };
const notYours = problem("alert_not_found: no alert rule of the caller has this id (another owner's rule answers the same)");
const forwarded = { 503: UNAVAILABLE, 504: TIMEOUT } as const;
const AlertResponse = published('AlertResponse', alertReplySchema);

export const alertsOperations = {
  listAlerts: operation({
    method: 'get',
    path: '/api/v1/alerts',
    tags: ['alerts'],
    summary: "The caller's alert rules, oldest first",
    access: 'paid',
    cost: 1,
    responses: { 200: { description: 'Alert rules', content: { 'application/json': published('AlertList', alertListReplySchema) } }, ...forwarded },
  }),
  createAlert: operation({
    method: 'post',
    path: '/api/v1/alerts',
    tags: ['alerts'],
    summary: 'Create an alert rule; its signing secret is in the answer, once',
    description:
      "At most 20 rules per subscriber (NOTIFIER_RULES_PER_KEY). A target URL must be https on port 443 and resolve to public addresses only (checked now and again at every delivery); without a target, the rule's firings are read from GET /alerts/stream and GET /alerts/{id}/deliveries. Each firing is POSTed with Standard Webhooks 1.0 headers (webhook-id, webhook-timestamp, webhook-signature), retried for 24 h under the same webhook-id (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then every 2 h); an endpoint that fails every delivery for 24 h gets its rule disabled (disabledReason endpoint_failing).",
    access: 'paid',
    cost: 1,
    body: published('AlertCreateRequest', alertCreateBodySchema),
    responses: {
      201: { description: 'Created', content: { 'application/json': published('AlertCreated', alertCreatedReplySchema) } },
      409: problem('alert_limit_reached: the caller already holds its limit of alert rules'),
      ...forwarded,
    },
  }),
  streamAlerts: operation({
    method: 'get',
    path: '/api/v1/alerts/stream',
    tags: ['alerts'],
    summary: "Server-sent events of the caller's firings, for receivers that take no webhooks",
    description:
      "`event: firing` (`id: <firing id>`, `data: <AlertStreamFiring JSON>`) for each firing of the caller's rules, targeted or not, as the notifier stores it: the same payload a `standard` webhook receives, under the same webhook id. A rule disabled for its failing endpoint sends its `alert.disabled` notice here too; test pings are not sent. With `Last-Event-ID` (a firing id) the firings after it are sent first, oldest first, then the live ones, none twice. Firings are kept as long as their rules. `: ping` every 15 s. Counted, capped and ended like /stream (429 too_many_streams, too_many_streams_from_address).",
    access: 'paid',
    cost: 1,
    parameters: { header: Type.Object({ 'Last-Event-ID': Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) }) },
    responses: { 200: { description: 'Event stream', content: { 'text/event-stream': Type.String() } } },
  }),
  getAlert: operation({
    method: 'get',
    path: '/api/v1/alerts/{id}',
    tags: ['alerts'],
    summary: "One of the caller's alert rules",
    access: 'paid',
    cost: 1,
    parameters: alertId,
    responses: { 200: { description: 'Alert rule', content: { 'application/json': AlertResponse } }, 404: notYours, ...forwarded },
  }),
  updateAlert: operation({
    method: 'patch',
    path: '/api/v1/alerts/{id}',
    tags: ['alerts'],
    summary: 'Change an alert rule (its kind excepted)',
    access: 'paid',
    cost: 1,
    parameters: alertId,
    body: published('AlertUpdateRequest', alertUpdateBodySchema),
    responses: { 200: { description: 'Alert rule', content: { 'application/json': AlertResponse } }, 404: notYours, ...forwarded },
  }),
  deleteAlert: operation({
    method: 'delete',
    path: '/api/v1/alerts/{id}',
    tags: ['alerts'],
    summary: 'Delete an alert rule with its firings, queued deliveries and delivery log',
    access: 'paid',
    cost: 1,
    parameters: alertId,
    responses: { 200: { description: 'Deleted', content: { 'application/json': published('AlertDeleted', alertDeleteReplySchema) } }, 404: notYours, ...forwarded },
  }),
  rotateAlertSecret: operation({
    method: 'post',
    path: '/api/v1/alerts/{id}/secret',
    tags: ['alerts'],
    summary: 'A new signing secret; the previous ones keep signing beside it for 24 h',
    access: 'paid',
    cost: 1,
    parameters: alertId,
    responses: { 200: { description: 'The new secret, shown once', content: { 'application/json': published('AlertSecret', alertSecretReplySchema) } }, 404: notYours, ...forwarded },
  }),
  testAlert: operation({
    method: 'post',
    path: '/api/v1/alerts/{id}/test',
    tags: ['alerts'],
    summary: 'Send one alert.test delivery to the rule\'s target now, and say how it went',
    description:
      "Signed as every delivery is, made while the request waits and never retried. It is logged among the rule's firings (GET /alerts/{id}/deliveries, type alert.test) and is not sent on GET /alerts/stream.",
    access: 'paid',
    cost: 5,
    parameters: alertId,
    responses: {
      200: { description: 'The outcome (delivered or not)', content: { 'application/json': published('AlertTest', alertTestReplySchema) } },
      404: notYours,
      409: problem('alert_has_no_target: the rule has no target to test'),
      ...forwarded,
    },
  }),
  listAlertDeliveries: operation({
    method: 'get',
    path: '/api/v1/alerts/{id}/deliveries',
    tags: ['alerts'],
    summary: "The rule's latest 100 firings, newest first, each with its delivery attempts",
    access: 'paid',
    cost: 1,
    parameters: alertId,
    responses: { 200: { description: 'Firings and attempts', content: { 'application/json': published('AlertDeliveries', alertDeliveriesReplySchema) } }, 404: notYours, ...forwarded },
  }),
  redeliverAlert: operation({
    method: 'post',
    path: '/api/v1/alerts/{id}/deliveries/{firingId}/redeliver',
    tags: ['alerts'],
    summary: 'Queue a firing again, now, under its webhook-id',
    access: 'paid',
    cost: 1,
    parameters: {
      path: Type.Object({
        id: Type.String({ description: 'Alert id' }),
        firingId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'A firing of the rule (GET /alerts/{id}/deliveries)' }),
      }),
    },
    responses: {
      202: { description: 'Queued', content: { 'application/json': published('AlertRedelivery', alertRedeliverReplySchema) } },
      404: problem('alert_not_found | firing_not_found: no such rule of the caller, or no such firing of the rule'),
      ...forwarded,
    },
  }),
};
