import { Type, literals, nullable, type Static } from './kit';

// Alert rules and their webhooks: commands answered by the notifier (NATS request/reply,
// queue group `notifier`). Every request carries the caller's subscriberId (the gateway's
// authentication decides it): the subscriber owns its rules. The gateway checks an HTTP
// body against the body schema; the notifier checks each kind's fields and bounds and
// names every problem with its JSON path.

const ALERT_ID_PATTERN = '^alr_[1-9A-HJ-NP-Za-km-z]{22}$';
const alertId = Type.String({ pattern: ALERT_ID_PATTERN });
const subscriberId = Type.String({ pattern: '^sub_[1-9A-HJ-NP-Za-km-z]{22}$' });
const isoTime = Type.String({ format: 'date-time' });
const count = Type.Integer({ minimum: 0 });
const firingId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** Alert ids: `alr_` + 22 base58 characters. */
export const ALERT_ID_RE = new RegExp(ALERT_ID_PATTERN);
/** Rules one subscriber may own unless the operator says otherwise (NOTIFIER_RULES_PER_KEY). */
export const DEFAULT_ALERTS_PER_OWNER = 20;

const kind = literals(['motherlode', 'square_ev', 'wallet', 'event', 'strategy_signal'], {
  description:
    'motherlode: the pool holds at least minOre. square_ev: some square returns at least minEvPerSol per SOL for stakeLamports at orePriceLamports, from fromSlotsBeforeEnd slots before the round ends. wallet: one of addresses deploys, wins, is top miner or shares the motherlode (on). event: an event-log event of eventKind passing filters. strategy_signal: a saved strategy\'s decision for the next round (strategyId, one of the caller\'s).',
});
const target = nullable(
  Type.Object(
    {
      url: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL; must resolve to a public address, port 443 (the operator may allow more)' }),
      format: Type.Optional(literals(['standard', 'discord', 'slack'], { description: 'standard (default): the JSON payload, Standard Webhooks 1.0 signed; discord and slack: those services\' webhook message JSON' })),
    },
    { additionalProperties: false },
  ),
);
const eventFilter = Type.Object(
  { field: Type.String(), op: literals(['<', '<=', '>', '>=', '==', '!=']), value: Type.Union([Type.Number(), Type.String()]) },
  { additionalProperties: false },
);

/** Every field a rule may have; which apply is the kind's (the notifier refuses the others, by path). */
const ruleFields = {
  name: Type.Optional(nullable(Type.String({ maxLength: 200, description: 'A label, 1..100 characters after trimming' }))),
  target: Type.Optional(target),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true; a disabled rule is kept and never fires' })),
  minOre: Type.Optional(Type.Number({ description: 'motherlode: whole ORE, > 0' })),
  minEvPerSol: Type.Optional(Type.Number({ description: 'square_ev: -1..1000, e.g. 0.05 (5% over the stake, expected)' })),
  stakeLamports: Type.Optional(Type.Integer({ description: 'square_ev: 1..10^15' })),
  orePriceLamports: Type.Optional(nullable(Type.Integer({ description: "square_ev: lamports per whole ORE; null or absent: the round's production cost" }))),
  fromSlotsBeforeEnd: Type.Optional(Type.Integer({ description: 'square_ev: 1..200' })),
  squares: Type.Optional(nullable(Type.Array(Type.Integer({ minimum: 0, maximum: 24 }), { description: 'square_ev: the squares considered; null or absent: all 25' }))),
  addresses: Type.Optional(Type.Array(Type.String(), { description: 'wallet: base58 public keys, 1..50' })),
  on: Type.Optional(Type.Array(literals(['deploy', 'win', 'top_miner', 'motherlode']), { description: 'wallet: one or more of deploy, win, top_miner, motherlode' })),
  eventKind: Type.Optional(Type.String({ description: 'event: a kind of GET /events' })),
  filters: Type.Optional(Type.Array(eventFilter, { description: "event: the event's numeric fields compared (any op), or its enumerated fields (==)" })),
  strategyId: Type.Optional(Type.String({ description: "strategy_signal: one of the caller's strategies" })),
};

export const alertCreateBodySchema = Type.Object(
  { kind, ...ruleFields },
  { $id: 'AlertCreateBody', additionalProperties: false, description: "A rule: its kind and that kind's fields. Every problem is answered at once, each with its JSON path." },
);
export type AlertCreateBody = Static<typeof alertCreateBodySchema>;

export const alertUpdateBodySchema = Type.Object(
  { kind: Type.Optional(kind), ...ruleFields },
  {
    $id: 'AlertUpdateBody',
    additionalProperties: false,
    description:
      'The fields given replace the rule\'s (null clears name, target, orePriceLamports, squares); the whole rule is checked again. The kind cannot change. enabled=true on a rule the notifier disabled (its endpoint failed for 24 h) clears why.',
  },
);
export type AlertUpdateBody = Static<typeof alertUpdateBodySchema>;

const alertObject = Type.Object(
  {
    id: alertId,
    kind,
    ...ruleFields,
    name: nullable(Type.String()),
    target,
    enabled: Type.Boolean(),
    disabledReason: nullable(literals(['endpoint_failing'], { description: "Why the notifier disabled it: its endpoint failed every delivery for 24 h. Null when enabled or disabled by its owner." })),
    failingSince: nullable(isoTime),
    createdAt: isoTime,
    updatedAt: isoTime,
  },
  { additionalProperties: false },
);
/** A stored rule as its owner reads it. */
export type Alert = Static<typeof alertObject>;

export const alertOwnerRequestSchema = Type.Object({ subscriberId }, { $id: 'AlertOwnerRequest', additionalProperties: false });
export const alertIdRequestSchema = Type.Object({ subscriberId, id: alertId }, { $id: 'AlertIdRequest', additionalProperties: false });
export type AlertIdRequest = Static<typeof alertIdRequestSchema>;
export const alertCreateRequestSchema = Type.Object({ subscriberId, body: alertCreateBodySchema }, { $id: 'AlertCreateRequest', additionalProperties: false });
export type AlertCreateRequest = Static<typeof alertCreateRequestSchema>;
export const alertUpdateRequestSchema = Type.Object({ subscriberId, id: alertId, body: alertUpdateBodySchema }, { $id: 'AlertUpdateRequest', additionalProperties: false });
export type AlertUpdateRequest = Static<typeof alertUpdateRequestSchema>;
export const alertRedeliverRequestSchema = Type.Object({ subscriberId, id: alertId, firingId }, { $id: 'AlertRedeliverRequest', additionalProperties: false });
export type AlertRedeliverRequest = Static<typeof alertRedeliverRequestSchema>;

export const alertReplySchema = Type.Object({ alert: alertObject }, { $id: 'AlertReply', additionalProperties: false });
export type AlertReply = Static<typeof alertReplySchema>;

export const alertCreatedReplySchema = Type.Object(
  {
    alert: alertObject,
    secret: nullable(
      Type.String({
        description: "The rule's signing secret (whsec_...), shown this once: receivers verify webhook-signature with it (Standard Webhooks 1.0). Null for a rule without a target.",
      }),
    ),
  },
  { $id: 'AlertCreatedReply', additionalProperties: false },
);
export type AlertCreatedReply = Static<typeof alertCreatedReplySchema>;

export const alertListReplySchema = Type.Object({ count, alerts: Type.Array(alertObject) }, { $id: 'AlertListReply', additionalProperties: false });
export type AlertListReply = Static<typeof alertListReplySchema>;

export const alertDeleteReplySchema = Type.Object({ ok: Type.Literal(true) }, { $id: 'AlertDeleteReply', additionalProperties: false });
export type AlertDeleteReply = Static<typeof alertDeleteReplySchema>;

export const alertSecretReplySchema = Type.Object(
  {
    secret: Type.String({ description: 'The new signing secret (whsec_...), shown this once' }),
    previousRetiresAt: isoTime,
  },
  { $id: 'AlertSecretReply', additionalProperties: false, description: 'Deliveries are signed with the new secret and, until previousRetiresAt (24 h), the previous ones too: webhook-signature carries one v1 signature per secret.' },
);
export type AlertSecretReply = Static<typeof alertSecretReplySchema>;

const attemptObject = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    at: isoTime,
    status: nullable(Type.Integer({ description: "The receiver's HTTP status; null when none came" })),
    latencyMs: count,
    excerpt: Type.String({ description: 'The start of the answer (at most 1 KiB)' }),
    error: nullable(Type.String({ description: 'timeout, redirect not followed, target refused: ..., or the connection error; null when delivered' })),
  },
  { additionalProperties: false },
);
export type AlertAttempt = Static<typeof attemptObject>;

const alertPayload = Type.Object(
  { type: Type.String({ description: 'alert.<kind>' }), ruleId: alertId, roundId: nullable(Type.Integer({ minimum: 0 })) },
  { additionalProperties: true, description: "What was posted: the kind's own fields follow type, ruleId and roundId" },
);

const firingObject = Type.Object(
  {
    id: firingId,
    webhookId: Type.String({ description: 'What every attempt carried as webhook-id' }),
    firedAt: isoTime,
    state: nullable(literals(['pending', 'delivered', 'expired'], { description: 'Null: the rule had no target (alert stream only)' })),
    attempts: Type.Array(attemptObject, { description: 'Newest first' }),
    payload: alertPayload,
  },
  { additionalProperties: false },
);
export type AlertFiring = Static<typeof firingObject>;

/** A firing as GET /alerts/stream sends it (`data:` of `event: firing`, `id:` its id). */
const streamFiringFields = {
  id: firingId,
  ruleId: alertId,
  webhookId: Type.String({ description: 'What its webhook deliveries carry as webhook-id (one firing, one id, on every path)' }),
  firedAt: isoTime,
  payload: alertPayload,
};
export const alertStreamFiringSchema = Type.Object(streamFiringFields, {
  $id: 'AlertStreamFiring',
  additionalProperties: false,
  description: "One of the caller's firings: a rule's condition that held (alert.<kind>), or the notice that a rule was disabled (alert.disabled). Test pings are not firings of the stream.",
});
export type AlertStreamFiring = Static<typeof alertStreamFiringSchema>;

/** A firing stored by the notifier, with its owner: what the gateway relays to that owner's streams. */
export const alertFiredSchema = Type.Object({ subscriberId, ...streamFiringFields }, { $id: 'AlertFired', additionalProperties: false });
export type AlertFired = Static<typeof alertFiredSchema>;

export const alertDeliveriesReplySchema = Type.Object({ count, firings: Type.Array(firingObject) }, { $id: 'AlertDeliveriesReply', additionalProperties: false });
export type AlertDeliveriesReply = Static<typeof alertDeliveriesReplySchema>;

export const alertTestReplySchema = Type.Object(
  { webhookId: Type.String(), delivered: Type.Boolean(), ...attemptObject.properties },
  { $id: 'AlertTestReply', additionalProperties: false, description: 'One test delivery (type alert.test), made now and not retried; its outcome.' },
);
export type AlertTestReply = Static<typeof alertTestReplySchema>;

export const alertRedeliverReplySchema = Type.Object({ queued: Type.Literal(true), webhookId: Type.String() }, { $id: 'AlertRedeliverReply', additionalProperties: false });
export type AlertRedeliverReply = Static<typeof alertRedeliverReplySchema>;
