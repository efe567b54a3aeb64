import * as alerts from '../alerts';
import * as billing from '../billing';
import * as lab from '../lab';
import * as miners from '../miners';
import * as rounds from '../schemas';
import * as strategies from '../strategies';
import { validatorOf, type Validator } from '../validate';
import type { Static } from '@sinclair/typebox';
import { command, event, message, type CommandSpec, type EventSpec, type PayloadOf, type RequestOf, type ResultOf, type Service } from './declaration';

export { message, type BusMessage, type CommandSpec, type EventSpec, type ReplyHeader, type RequestOf, type ResultOf, type Service } from './declaration';

/**
 * Every reply of a command: the envelope around its result or its error (@gridlab/bus
 * writes and reads it; a chunked reply is this envelope's bytes, split).
 */
export const COMMAND_REPLY = message(billing.commandReplySchema, 'Every command reply: {ok:true,result} with the command result (its channel names the result message), or {ok:false,error} with the HTTP problem to relay.');

/** The settled round, as the document describes it (long: one sentence a line). */
const ROUND_DESCRIPTION = [
  'A settled round (SPEC 3 "Stored round"). Lamports and ORE base units (11 decimals) are integers.',
  "`payoutRule` is the rule that settled it: `parimutuel` (v3 rounds, and 952-byte rounds until 2026-08-12: the winning square's miners share `totalWinnings`, the SOL of the losing squares after fees, and get their own stake back less 1%) or `returns` (since 2026-08-12: every square's miners get their own SOL back less fees; `totalWinnings` is the SOL returned on all squares, `totalVaulted` the protocol fees, and the prize is ORE).",
  "`oreReward` (the round's ORE reward, sum of the account's `rewards`), `topMiner` (the address drawn for it, or the split address), `split` (the reward was shared pro rata on the winning square) and `productionCost` (the board's production cost when the round settled, lamports per whole ORE) are set for 952-byte rounds and null for v3 rounds; `productionCost` is also null for a round rebuilt from its transactions (the chain keeps no past value).",
  "`source` says where the round was read: `account` (its account on chain), `transactions` (its account was closed, as the program allows a day after the round ends: rebuilt from its ResetEvent, its DeployEvents or Deploy instructions and the reset's logged randomness) or `import` (an imported history file that did not say).",
  '`motherlodePool` is the ORE in the motherlode pool the round played for, as the indexer read the Treasury while the round was live (a round that hit the motherlode paid out exactly this); null where it did not watch the round live.',
  "A voided round (`winningSquare` null) refunded every stake under every rule; a voided 952-byte round's `deployed` is zeroed on chain and `totalDeployed` = `totalWinnings` = the refund.",
].join(' ');

/** GET, DELETE and the actions of /alerts/{id}: the caller and the rule id (another owner's answers 404 alert_not_found). */
const alertIdRequest = message(alerts.alertIdRequestSchema, "The caller and an alert rule's id (another owner's rule answers 404 alert_not_found).");
const alertReply = message(alerts.alertReplySchema);

const strategyIdRequest = message(
  strategies.strategyIdRequestSchema,
  "GET or DELETE /lab/strategies/{id} and GET /lab/strategies/{id}/forward: the caller and the strategy id (another owner's id answers 404 strategy_not_found).",
);
const strategyReply = message(strategies.strategyReplySchema);
const issuedKey = message(billing.issuedKeySchema);

/**
 * Every request/reply command on NATS: the one place a command is declared, its subject
 * (under the deployment's prefix: `natsNames().commands`) included. tools/api-docs writes the AsyncAPI channels, operations and
 * messages from it; callers send with @gridlab/bus's sendCommand and servers answer with
 * serveDeclared, both checking the declared schemas.
 */
export const COMMANDS = {
  pricing: command({
    subject: 'billing.pricing.get',
    server: 'billing',
    queue: 'billing',
    callers: ['api-gateway'],
    request: message(billing.pricingRequestSchema, 'Request for the current price sheet.'),
    reply: message(billing.pricingSchema),
  }),
  subscribeStart: command({
    subject: 'billing.subscription.start',
    server: 'billing',
    queue: 'billing',
    callers: ['api-gateway'],
    request: message(billing.subscribeStartRequestSchema, 'POST /subscribe body.'),
    reply: message(billing.subscriptionStartSchema),
  }),
  subscribeComplete: command({
    subject: 'billing.subscription.complete',
    server: 'billing',
    queue: 'billing',
    callers: ['api-gateway'],
    request: message(
      billing.subscribeCompleteRequestSchema,
      "PUT /subscribe body; signatureBase64 and message (optional, together) are the owner's ed25519 signature and the signed subscribe message (signed redemption, see the OpenAPI document).",
    ),
    reply: issuedKey,
  }),
  reissueStart: command({
    subject: 'billing.key.reissue-start',
    server: 'billing',
    queue: 'billing',
    callers: ['api-gateway'],
    request: message(billing.reissueStartRequestSchema, 'POST /reissue body.'),
    reply: message(billing.reissueStartSchema),
  }),
  reissueComplete: command({
    subject: 'billing.key.reissue-complete',
    server: 'billing',
    queue: 'billing',
    callers: ['api-gateway'],
    request: message(billing.reissueCompleteRequestSchema, 'PUT /reissue body.'),
    reply: issuedKey,
  }),
  keyRevoke: command({
    subject: 'billing.key.revoke',
    server: 'billing',
    queue: 'billing',
    callers: ['api-gateway'],
    request: message(billing.keyRevokeRequestSchema, 'Revoke one key by its HMAC hash (key-sharing policy revoke).'),
    reply: message(billing.keyRevokeReplySchema),
  }),
  sessionEnd: command({
    subject: 'billing.session.end',
    server: 'billing',
    queue: 'billing',
    callers: ['api-gateway'],
    when: 'on sign-out',
    request: message(billing.sessionEndRequestSchema, "Sign-out: end the subscriber's dashboard sessions signed in at `epoch` or before."),
    reply: message(billing.sessionEndReplySchema, "the subscriber's session epoch now: sessions below it are over"),
  }),
  labBacktest: command({
    subject: 'lab.backtest.run',
    server: 'lab-backtest',
    queue: 'labBacktest',
    callers: ['api-gateway'],
    request: message(
      lab.backtestRequestSchema,
      'POST /lab/backtest body: a Strategy DSL (checked and normalized by lab-backtest, errors name JSON paths under /dsl) and an optional inclusive round-id window.',
    ),
    reply: message(lab.backtestResultSchema, 'SPEC 7.8'),
    chunked: true,
  }),
  labAnalytics: command({
    subject: 'lab.analytics.run',
    server: 'lab-backtest',
    queue: 'labBacktest',
    callers: ['api-gateway'],
    request: message(lab.analyticsRequestSchema, 'POST /lab/analytics body.'),
    reply: message(lab.analyticsSchema, 'SPEC 7.9'),
    chunked: true,
    replyHeaders: [{ name: lab.CACHE_HEADER, values: ['hit', 'miss'], description: 'served from the analytics cache or computed' }],
  }),
  strategyCreate: command({
    subject: 'lab.strategy.create',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: message(
      strategies.strategyCreateRequestSchema,
      "POST /lab/strategies: the body ({name, dsl}) plus the caller's subscriberId (the gateway's authentication decides it). lab-forward trims the name (1..80 characters) and normalizes the DSL (errors name JSON paths under /dsl).",
    ),
    reply: strategyReply,
  }),
  strategyList: command({
    subject: 'lab.strategy.list',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: message(strategies.strategyOwnerRequestSchema, 'GET /lab/strategies: whose strategies to list.'),
    reply: message(strategies.strategyListReplySchema),
  }),
  strategyGet: command({
    subject: 'lab.strategy.get',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway', 'notifier'],
    request: strategyIdRequest,
    reply: message(strategies.strategyDetailReplySchema),
  }),
  strategyUpdate: command({
    subject: 'lab.strategy.update',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: message(strategies.strategyUpdateRequestSchema, 'PATCH /lab/strategies/{id}: name and/or active only.'),
    reply: strategyReply,
  }),
  strategyDelete: command({
    subject: 'lab.strategy.delete',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: strategyIdRequest,
    reply: message(strategies.strategyDeleteReplySchema),
    description: 'The deletion is recoverable: lab.strategy.restore brings the strategy back until it is purged LAB_DELETED_RETENTION_DAYS later.',
  }),
  strategyRestore: command({
    subject: 'lab.strategy.restore',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: strategyIdRequest,
    reply: strategyReply,
    description: 'Answers strategy_not_found when the owner has no deleted, unpurged strategy of that id.',
  }),
  strategyForward: command({
    subject: 'lab.strategy.forward',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: strategyIdRequest,
    reply: message(strategies.forwardStatsSchema, 'SPEC 7.10 forward-test stats'),
  }),
  leaderboardGet: command({
    subject: 'lab.leaderboard.get',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: message(strategies.leaderboardRequestSchema, 'GET /lab/leaderboard (public).'),
    reply: message(strategies.leaderboardSchema),
  }),
  leaderboardEntry: command({
    subject: 'lab.leaderboard.entry',
    server: 'lab-forward',
    queue: 'labForward',
    callers: ['api-gateway'],
    request: message(strategies.leaderboardEntryRequestSchema, 'GET /lab/leaderboard/{id}.'),
    reply: message(strategies.leaderboardDetailSchema, '404 strategy_not_found when not on the board'),
  }),
  alertCreate: command({
    subject: 'alerts.rule.create',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: message(alerts.alertCreateRequestSchema, "POST /alerts: the body plus the caller's subscriberId. The notifier checks the kind's fields (every problem, by JSON path), the target (https, a public address, resolved now) and the caller's rule count."),
    reply: message(alerts.alertCreatedReplySchema),
  }),
  alertList: command({
    subject: 'alerts.rule.list',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: message(alerts.alertOwnerRequestSchema, 'GET /alerts: whose rules to list.'),
    reply: message(alerts.alertListReplySchema),
  }),
  alertGet: command({
    subject: 'alerts.rule.get',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: alertIdRequest,
    reply: alertReply,
  }),
  alertUpdate: command({
    subject: 'alerts.rule.update',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: message(alerts.alertUpdateRequestSchema, 'PATCH /alerts/{id}: the fields to change.'),
    reply: alertReply,
  }),
  alertDelete: command({
    subject: 'alerts.rule.delete',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: alertIdRequest,
    reply: message(alerts.alertDeleteReplySchema),
    description: 'The rule goes with its firings, queued deliveries and delivery log.',
  }),
  alertRotateSecret: command({
    subject: 'alerts.rule.rotate-secret',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: alertIdRequest,
    reply: message(alerts.alertSecretReplySchema),
  }),
  alertTest: command({
    subject: 'alerts.rule.test',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: alertIdRequest,
    reply: message(alerts.alertTestReplySchema),
  }),
  alertDeliveries: command({
    subject: 'alerts.rule.deliveries',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: alertIdRequest,
    reply: message(alerts.alertDeliveriesReplySchema),
  }),
  alertRedeliver: command({
    subject: 'alerts.rule.redeliver',
    server: 'notifier',
    queue: 'notifier',
    callers: ['api-gateway'],
    request: message(alerts.alertRedeliverRequestSchema, 'POST /alerts/{id}/deliveries/{firingId}/redeliver: the firing queued again, under its webhook id.'),
    reply: message(alerts.alertRedeliverReplySchema),
  }),
} as const satisfies Readonly<Record<string, CommandSpec>>;

/**
 * Every subject published on NATS (under the deployment's prefix: `natsNames().subjects`):
 * durable facts on a JetStream stream and core NATS signals.
 */
export const EVENTS = {
  roundSettled: event({
    subject: 'grid.round.settled',
    payload: message(rounds.roundSchema, ROUND_DESCRIPTION),
    stream: 'rounds',
    description: 'JetStream stream ROUNDS; Nats-Msg-Id = round id; duplicate window 15 minutes.',
    publisher: { service: 'indexer', summary: 'publishes each settled round once it is stored' },
    receivers: [
      { service: 'lab-backtest', summary: 'catches its round history up from PostgreSQL when a round beyond it settles (a plain subscription on every replica)' },
      { service: 'notifier', summary: "checks wallet alert rules against the round's winner, from the live deploys when its miner rows have not come (every replica)" },
    ],
  }),
  roundOpened: event({
    subject: 'grid.round.opened',
    payload: message(rounds.roundOpenedSchema),
    stream: 'rounds',
    description: 'JetStream stream ROUNDS; Nats-Msg-Id = "opened-<round id>".',
    publisher: { service: 'indexer', summary: 'announces a new round when the board advances' },
  }),
  minersSettled: event({
    subject: 'grid.miners.settled',
    payload: message(miners.roundMinersSchema, "Every wallet's side of a settled round, once the indexer has read the round's transactions and stored its miner rows (a round's miners may follow its `grid.round.settled` by a few seconds, or much later when history is filled)."),
    stream: 'rounds',
    description: 'JetStream stream ROUNDS; Nats-Msg-Id = "miners-<round id>"; a round whose miners do not fit the server\'s max payload comes in several messages, each with some of them ("miners-<round id>-<offset of its first>").',
    publisher: { service: 'indexer', summary: "publishes a round's miner rows once they are stored" },
    receivers: [
      { service: 'api-gateway', summary: "pushes each wallet's row to its /miners/{address}/stream clients (a plain subscription on every replica)" },
      { service: 'notifier', summary: 'checks wallet alert rules (win, top miner, motherlode) against the rows (every replica)' },
    ],
  }),
  minerDeployed: event({
    subject: 'grid.miners.deployed',
    payload: message(miners.minerDeployedSchema),
    description: "Core NATS, fire and forget: each deploy of the live round as the indexer reads it from its finalized transaction (it polls the round's signatures).",
    publisher: { service: 'indexer', summary: 'publishes each deploy of the live round it reads' },
    receivers: [
      { service: 'api-gateway', summary: "pushes it to the deploying wallet's /miners/{address}/stream clients" },
      { service: 'notifier', summary: "checks wallet alert rules watching the deploying wallet's deploys (every replica)" },
    ],
  }),
  liveUpdated: event({
    subject: 'grid.live.updated',
    payload: message(
      rounds.liveSnapshotSchema,
      "The live round (GET /live, /stream). `game` is today's game: the rule and ORE prize of the rounds settling now, the Treasury's motherlode pool, the board's production cost, which squares' prize would be split pro rata if they win (the round's distribution mask; null while the round decides by its randomness), and each square's expected result per lamport for a stake of `evStakeLamports` added now (SOL back under the rule's exact fees, plus the expected ORE, 1/25 · stake/(square + stake) · (prize + pool/500), at `evOrePriceLamports` per ORE, the production cost). Snapshots of older indexers carry no `game`.",
    ),
    description: 'Core NATS, fire and forget; the latest value is also in KV bucket LIVE, key "snapshot".',
    publisher: { service: 'indexer', summary: 'publishes a snapshot on every board or round account change' },
    receivers: [
      { service: 'api-gateway', summary: 'keeps the latest snapshot for /live and pushes it to /stream clients' },
      { service: 'notifier', summary: 'checks motherlode and square_ev alert rules against each snapshot (every replica)' },
    ],
  }),
  keyShared: event({
    subject: 'access.key.shared',
    payload: message(rounds.keySharedSchema),
    description: 'Core NATS. A key was used from more client addresses than allowed within the sharing window; the key itself is never sent.',
    publisher: { service: 'api-gateway', summary: 'reports a key_sharing signal' },
  }),
  keyRevoked: event({
    subject: 'access.key.revoked',
    payload: message(billing.keyRevokedSchema),
    description:
      'Core NATS. A key was revoked; published by billing from its revocation outbox once the Redis tombstone is written (retried until it lands). Gateways drop the key from their in-process cache and close its open streams. Only the key\'s HMAC is sent.',
    publisher: { service: 'billing', summary: 'announces a revoked key (after its tombstone landed)' },
    receivers: [{ service: 'api-gateway', summary: "empties its positive key cache of the key and closes the key's streams" }],
  }),
  sessionEnded: event({
    subject: 'access.session.ended',
    payload: message(billing.sessionEndedSchema, 'The dashboard sessions of a subscriber signed in below `epoch` are over.'),
    description:
      "Core NATS. A subscriber's dashboard sessions signed in below `epoch` are over (sign-out); published by billing after it raised the subscriber's session epoch in PostgreSQL. Gateways refuse those sessions at once and close the streams and dumps they opened. A lost message costs at most the gateways' epoch re-check interval (2 s for requests, STREAM_EXPIRY_CHECK_S for open streams), never the sign-out itself.",
    publisher: { service: 'billing', summary: "announces a subscriber's ended dashboard sessions (after its commit)" },
    receivers: [{ service: 'api-gateway', summary: 'refuses the ended sessions and closes their streams and dumps' }],
  }),
  subscriptionChanged: event({
    subject: 'billing.subscription.changed',
    payload: message(billing.subscriptionFactSchema, 'A subscription was activated, renewed or expired (no wallet key).'),
    stream: 'billing',
    description: "JetStream stream BILLING; Nats-Msg-Id = factId; published after commit from billing's outbox (re-published until acknowledged).",
    publisher: { service: 'billing', summary: 'publishes subscription facts (consumed by event-log)' },
  }),
  tierChanged: event({
    subject: 'billing.tier.changed',
    payload: message(billing.tierFactSchema, 'The active subscription count crossed a pricing threshold.'),
    stream: 'billing',
    description: 'JetStream stream BILLING; Nats-Msg-Id = factId.',
    publisher: { service: 'billing', summary: 'publishes tier crossings (consumed by event-log)' },
  }),
  forwardDecided: event({
    subject: 'lab.forward.decided',
    payload: message(strategies.forwardDecisionSchema),
    description: "Core NATS, fire and forget: one message per active strategy as soon as lab-forward's writer has recorded (committed) its decision for the round the board has open. The recorded prediction in PostgreSQL is the record; a message missed is not sent again.",
    publisher: { service: 'lab-forward', summary: 'publishes each decision its forward test recorded, after commit' },
    receivers: [{ service: 'notifier', summary: "fires strategy_signal alert rules on the strategy's decision (every replica)" }],
  }),
  eventAppended: event({
    subject: 'events.event.appended',
    payload: message(rounds.logEventSchema, 'An event appended to the log: { id, ts, kind, ...fields of the kind }.'),
    description: 'Core NATS, published by the event-log writer after commit, in id order. Readers that see an id jump read the missing ids from PostgreSQL.',
    publisher: { service: 'event-log', summary: 'publishes each appended event (consumed by api-gateway for /events/stream)' },
    receivers: [
      { service: 'api-gateway', summary: 'relays each event to /events/stream clients, reading skipped ids from PostgreSQL' },
      { service: 'notifier', summary: 'checks event alert rules against each event (every replica)' },
    ],
  }),
  alertFired: event({
    subject: 'alerts.firing.stored',
    payload: message(alerts.alertFiredSchema),
    description:
      "Core NATS, fire and forget: each firing the notifier stored (a rule's condition that held, or the notice that a rule was disabled), after commit, with its owner. The firings in PostgreSQL are the record: a stream resumed with Last-Event-ID reads them there.",
    publisher: { service: 'notifier', summary: 'publishes each firing it stored, after commit' },
    receivers: [{ service: 'api-gateway', summary: "pushes it to its owner's /alerts/stream clients (a plain subscription on every replica)" }],
  }),
} as const satisfies Readonly<Record<string, EventSpec>>;

export type Commands = typeof COMMANDS;
export type CommandName = keyof Commands;
export type EventName = keyof typeof EVENTS;

/** The commands `service` answers, as the table declares them. */
export function commandsServedBy(service: Service): CommandName[] {
  return (Object.keys(COMMANDS) as CommandName[]).filter((name) => COMMANDS[name].server === service);
}

/** The commands a service answers, by name (what its handler table must list, no more, no less). */
export type ServedBy<S extends Service> = { [K in CommandName]: Commands[K]['server'] extends S ? K : never }[CommandName];

const validators = new Map<CommandName, { request: Validator<unknown>; result: Validator<unknown> }>();

/** The checks of a declared command's request and result (validatorOf each schema). */
export function commandValidators<K extends CommandName>(name: K): { readonly request: Validator<RequestOf<Commands[K]>>; readonly result: Validator<ResultOf<Commands[K]>> } {
  let pair = validators.get(name);
  if (pair === undefined) {
    const spec: CommandSpec = COMMANDS[name];
    pair = { request: validatorOf(spec.request.schema), result: validatorOf(spec.reply.schema) };
    validators.set(name, pair);
  }
  return pair as { request: Validator<RequestOf<Commands[K]>>; result: Validator<ResultOf<Commands[K]>> };
}

/** What the declared subject `K` carries. */
export type EventPayload<K extends EventName> = PayloadOf<(typeof EVENTS)[K]>;

/** The check of what a declared subject carries (its publishers before sending, its readers after receiving). */
export function eventValidator<K extends EventName>(name: K): Validator<EventPayload<K>> {
  const spec: EventSpec = EVENTS[name];
  return validatorOf(spec.payload.schema) as Validator<EventPayload<K>>;
}

/** The check of every command reply's envelope. */
export function commandReplyValidator(): Validator<Static<typeof COMMAND_REPLY.schema>> {
  return validatorOf(COMMAND_REPLY.schema);
}
