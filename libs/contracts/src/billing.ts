import { Type, literals, nullable, type Static } from './kit';

// Billing's commands (NATS request/reply) and facts (JetStream). The gateway validates an
// HTTP body against the same request schema billing validates the NATS message against.

const base58 = '^[1-9A-HJ-NP-Za-km-z]+$';
const pubkey = Type.String({ minLength: 32, maxLength: 44, pattern: base58 });
const API_KEY_PATTERN = '^grid_[1-9A-HJ-NP-Za-km-z]{43}$';
const SUBSCRIBER_ID_PATTERN = '^sub_[1-9A-HJ-NP-Za-km-z]{22}$';
const PAYMENT_NONCE_PATTERN = '^pay-[1-9A-HJ-NP-Za-km-z]{22}$';
const REISSUE_NONCE_PATTERN = '^rei-[1-9A-HJ-NP-Za-km-z]{22}$';
const subscriberId = Type.String({ pattern: SUBSCRIBER_ID_PATTERN });
const isoTime = Type.String({ format: 'date-time' });
const baseUnits = Type.String({ pattern: '^(0|[1-9][0-9]{0,30})$' });
const plan = literals(['monthly', 'annual']);
export type Plan = Static<typeof plan>;

/** API keys: `grid_` + 43 base58 characters, 43 * log2(58) = 251.9 bits of entropy. */
export const API_KEY_RE = new RegExp(API_KEY_PATTERN);
/** Subscriber ids: `sub_` + 22 base58 characters. */
export const SUBSCRIBER_ID_RE = new RegExp(SUBSCRIBER_ID_PATTERN);
/** Payment nonces (POST /subscribe): `pay-` + 22 base58 characters. */
export const PAYMENT_NONCE_RE = new RegExp(PAYMENT_NONCE_PATTERN);
/** Reissue nonces (POST /keys/reissue): `rei-` + 22 base58 characters. */
export const REISSUE_NONCE_RE = new RegExp(REISSUE_NONCE_PATTERN);

/** What a signed `PUT /subscribe` message names. */
export interface SubscribeMessageFields {
  /** The service's public origin (`PUBLIC_ORIGIN`, e.g. `https://api.gridlab.example`): a signature made for another site is refused. */
  readonly domain: string;
  readonly ownerPubkey: string;
  readonly nonce: string;
  readonly txSig: string;
  /** ISO 8601; the signature is refused from then on. */
  readonly expiresAt: string;
}

const SUBSCRIBE_MESSAGE_RE =
  /^Gridlab API key subscribe\ndomain: (?<domain>[^\s]+)\nowner: (?<ownerPubkey>[^\s]+)\nnonce: (?<nonce>[^\s]+)\ntxSig: (?<txSig>[^\s]+)\nexpires: (?<expiresAt>[^\s]+)$/;

/**
 * The exact text the owner's wallet signs for a signed `PUT /subscribe`. It names the
 * site, the payment nonce and its transaction, and an expiry, so a signature redeems that
 * payment only, at that site, for a while (the reissue scheme).
 */
export function subscribeMessage(f: SubscribeMessageFields): string {
  return `Gridlab API key subscribe\ndomain: ${f.domain}\nowner: ${f.ownerPubkey}\nnonce: ${f.nonce}\ntxSig: ${f.txSig}\nexpires: ${f.expiresAt}`;
}

/** The fields of a subscribe message, or null when the text is not one. */
export function parseSubscribeMessage(message: string): SubscribeMessageFields | null {
  const m = SUBSCRIBE_MESSAGE_RE.exec(message)?.groups;
  if (m === undefined) return null;
  return { domain: m['domain']!, ownerPubkey: m['ownerPubkey']!, nonce: m['nonce']!, txSig: m['txSig']!, expiresAt: m['expiresAt']! };
}

/** What the reissue message a wallet signs names (POST /reissue's `message`). */
export interface ReissueMessageFields {
  /** The service's public origin (`PUBLIC_ORIGIN`): a client refuses to sign a message naming another site. */
  readonly domain: string;
  readonly ownerPubkey: string;
  readonly nonce: string;
  /** ISO 8601 (toISOString): the nonce's expiry. */
  readonly expiresAt: string;
}

/**
 * The exact text a wallet signs to rotate its key (SPEC 5's message with the site added):
 * a look-alike site that starts a reissue at the real service gets a message naming the
 * real origin, which a client checking it against the site it talks to will not sign.
 */
export function reissueMessage(f: ReissueMessageFields): string {
  return `Gridlab API key reissue\ndomain: ${f.domain}\nowner: ${f.ownerPubkey}\nnonce: ${f.nonce}\nexpires: ${f.expiresAt}`;
}

/** The kinds of a command's failure (those of @gridlab/errors' ErrorKind that cross the bus). */
export const COMMAND_ERROR_KINDS = [
  'input',
  'not_found',
  'conflict',
  'unavailable',
  'chain',
  'decode',
  'unauthenticated',
  'forbidden',
  'payment_required',
  'rate_limited',
  'timeout',
  'gone',
  'unprocessable',
] as const;

export const pricingRequestSchema = Type.Object({}, { $id: 'PricingRequest', additionalProperties: false });

export const pricingSchema = Type.Object(
  {
    activeSubs: Type.Integer({ minimum: 0 }),
    tokenNow: Type.Number({ minimum: 0 }),
    nextThreshold: nullable(Type.Integer({ minimum: 1 })),
    tokenAtNextThreshold: nullable(Type.Number({ minimum: 0 })),
    treasury: pubkey,
    tokenMint: pubkey,
  },
  { $id: 'Pricing', additionalProperties: false },
);
/** GET /pricing. */
export type Pricing = Static<typeof pricingSchema>;

export const subscribeStartRequestSchema = Type.Object(
  {
    ownerPubkey: pubkey,
    plan: Type.Optional(plan),
    referralCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    requireSignature: Type.Optional(Type.Boolean()),
  },
  { $id: 'SubscribeStartRequest', additionalProperties: false },
);
export type SubscribeStartRequest = Static<typeof subscribeStartRequestSchema>;

export const subscriptionStartSchema = Type.Object(
  {
    nonce: Type.String({ pattern: PAYMENT_NONCE_PATTERN }),
    priceToken: Type.Number({ exclusiveMinimum: 0 }),
    instructions: Type.Object({ to: pubkey, memo: Type.String(), amountBaseUnits: baseUnits, mint: pubkey }, { additionalProperties: false }),
    expiresAt: isoTime,
  },
  { $id: 'SubscriptionStart', additionalProperties: false },
);
export type SubscriptionStart = Static<typeof subscriptionStartSchema>;

export const subscribeCompleteRequestSchema = Type.Object(
  {
    nonce: Type.String({ minLength: 1, maxLength: 64 }),
    txSig: Type.String({ minLength: 64, maxLength: 88, pattern: base58 }),
    ownerPubkey: pubkey,
    signatureBase64: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    message: Type.Optional(Type.String({ minLength: 1, maxLength: 600 })),
  },
  { $id: 'SubscribeCompleteRequest', additionalProperties: false },
);
export type SubscribeCompleteRequest = Static<typeof subscribeCompleteRequestSchema>;

export const issuedKeySchema = Type.Object(
  { apiKey: Type.String({ pattern: API_KEY_PATTERN }), subscriberId, paidUntil: isoTime },
  { $id: 'IssuedKey', additionalProperties: false },
);
export type IssuedKeyReply = Static<typeof issuedKeySchema>;

export const reissueStartRequestSchema = Type.Object({ ownerPubkey: pubkey }, { $id: 'ReissueStartRequest', additionalProperties: false });
export type ReissueStartRequest = Static<typeof reissueStartRequestSchema>;

export const reissueStartSchema = Type.Object(
  { nonce: Type.String({ pattern: REISSUE_NONCE_PATTERN }), message: Type.String(), expiresAt: isoTime },
  { $id: 'ReissueStart', additionalProperties: false },
);
export type ReissueStart = Static<typeof reissueStartSchema>;

export const reissueCompleteRequestSchema = Type.Object(
  { nonce: Type.String({ minLength: 1, maxLength: 64 }), ownerPubkey: pubkey, signatureBase64: Type.String({ minLength: 1, maxLength: 200 }) },
  { $id: 'ReissueCompleteRequest', additionalProperties: false },
);
export type ReissueCompleteRequest = Static<typeof reissueCompleteRequestSchema>;

export const keyRevokeRequestSchema = Type.Object(
  { keyHash: Type.String({ pattern: '^[0-9a-f]{64}$' }), reason: literals(['key_sharing']) },
  { $id: 'KeyRevokeRequest', additionalProperties: false },
);
/** Revoke one key by its hash (the gateway's key-sharing policy `revoke`). */
export type KeyRevokeRequest = Static<typeof keyRevokeRequestSchema>;

export const keyRevokeReplySchema = Type.Object({ revoked: Type.Boolean() }, { $id: 'KeyRevokeReply', additionalProperties: false });
export type KeyRevokeReply = Static<typeof keyRevokeReplySchema>;

const sessionEpoch = Type.Integer({ minimum: 0, maximum: 2_147_483_647 });

/** A subscriber and a session epoch: the sign-out request, and billing's reply with the epoch now. */
const subscriberEpoch = { subscriberId, epoch: sessionEpoch };

export const sessionEndRequestSchema = Type.Object(subscriberEpoch, { $id: 'SessionEndRequest', additionalProperties: false });
/**
 * Ends the dashboard sessions of a subscriber signed in at `epoch` or before (sign-out):
 * billing raises the subscriber's session epoch past it, durably, then announces it.
 */
export type SessionEndRequest = Static<typeof sessionEndRequestSchema>;

export const sessionEndReplySchema = Type.Object(subscriberEpoch, { $id: 'SessionEndReply', additionalProperties: false });
/** The subscriber's session epoch after the sign-out: sessions signed in below it are over. */
export type SessionEndReply = Static<typeof sessionEndReplySchema>;

/**
 * A command's failure on the bus, with no HTTP in it: the kind of failure, a stable code,
 * whether retrying can help, and the field errors of an input. Only the gateway maps a
 * kind to an HTTP status; a durable consumer uses `retryable` (nak with a delay, or
 * terminate).
 */
const commandErrorSchema = Type.Object(
  {
    kind: literals(COMMAND_ERROR_KINDS),
    retryable: Type.Boolean(),
    code: Type.String({ pattern: '^[a-z_]+$' }),
    detail: Type.String(),
    retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
);
export type CommandError = Static<typeof commandErrorSchema>;

/** The envelope of every billing reply; `result` is checked against the command's own schema. */
export const commandReplySchema = Type.Union(
  [
    Type.Object({ ok: Type.Literal(true), result: Type.Unknown() }, { additionalProperties: false }),
    Type.Object({ ok: Type.Literal(false), error: commandErrorSchema }, { additionalProperties: false }),
  ],
  { $id: 'CommandReply' },
);
/** Every billing reply: the result, or the error to relay. */
export type CommandReply<T> = { readonly ok: true; readonly result: T } | { readonly ok: false; readonly error: CommandError };

export const subscriptionFactSchema = Type.Object(
  {
    factId: Type.String({ minLength: 1, maxLength: 200 }),
    action: literals(['activated', 'renewed', 'expired']),
    plan: literals(['monthly', 'annual', 'grant']),
    subscriberId,
    paidUntil: isoTime,
    activeSubs: Type.Integer({ minimum: 0 }),
    ts: isoTime,
  },
  { $id: 'SubscriptionFact', additionalProperties: false },
);
/** A subscription was activated, renewed (payment or operator grant) or expired. No wallet key. */
export type SubscriptionFact = Static<typeof subscriptionFactSchema>;

export const tierFactSchema = Type.Object(
  {
    factId: Type.String({ minLength: 1, maxLength: 200 }),
    activeSubs: Type.Integer({ minimum: 0 }),
    tokenNow: Type.Number({ minimum: 0 }),
    direction: literals(['up', 'down']),
    ts: isoTime,
  },
  { $id: 'TierFact', additionalProperties: false },
);
/** The active subscription count crossed a pricing threshold. */
export type TierFact = Static<typeof tierFactSchema>;

export const keyRevokedSchema = Type.Object(
  { keyHash: Type.String({ pattern: '^[0-9a-f]{64}$' }), revokedAt: isoTime },
  { $id: 'KeyRevoked', additionalProperties: false },
);
/**
 * A key was revoked (replaced, reissued, taken back, shared, or by an operator): core
 * NATS, from billing's revocation outbox after its Redis tombstone landed. Gateways drop
 * the key from their in-process cache and close its open streams. Only the key's HMAC.
 */
export type KeyRevoked = Static<typeof keyRevokedSchema>;

export const sessionEndedSchema = Type.Object(
  { subscriberId, epoch: sessionEpoch, endedAt: isoTime },
  { $id: 'SessionEnded', additionalProperties: false },
);
/**
 * Dashboard sessions of a subscriber signed in below `epoch` are over (core NATS, after
 * billing's commit): gateways refuse them and close their streams and dumps at once.
 */
export type SessionEnded = Static<typeof sessionEndedSchema>;
