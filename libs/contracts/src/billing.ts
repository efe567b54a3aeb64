import type { SchemaObject } from 'ajv';

// Billing's commands (NATS request/reply) and facts (JetStream). The gateway validates an
// HTTP body against the same request schema billing validates the NATS message against.

const base58 = '^[1-9A-HJ-NP-Za-km-z]+$';
const pubkey = { type: 'string', minLength: 32, maxLength: 44, pattern: base58 } as const;
const API_KEY_PATTERN = '^grid_[1-9A-HJ-NP-Za-km-z]{43}$';
const SUBSCRIBER_ID_PATTERN = '^sub_[1-9A-HJ-NP-Za-km-z]{22}$';
const PAYMENT_NONCE_PATTERN = '^pay-[1-9A-HJ-NP-Za-km-z]{22}$';
const REISSUE_NONCE_PATTERN = '^rei-[1-9A-HJ-NP-Za-km-z]{22}$';
const subscriberId = { type: 'string', pattern: SUBSCRIBER_ID_PATTERN } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;
const baseUnits = { type: 'string', pattern: '^(0|[1-9][0-9]{0,30})$' } as const;
const plan = { type: 'string', enum: ['monthly', 'annual'] } as const;

export type Plan = 'monthly' | 'annual';

/** API keys: `grid_` + 43 base58 characters, 43 * log2(58) = 251.9 bits of entropy. */
export const API_KEY_RE = new RegExp(API_KEY_PATTERN);
/** Subscriber ids: `sub_` + 22 base58 characters. */
export const SUBSCRIBER_ID_RE = new RegExp(SUBSCRIBER_ID_PATTERN);
/** Payment nonces (POST /subscribe): `pay-` + 22 base58 characters. */
export const PAYMENT_NONCE_RE = new RegExp(PAYMENT_NONCE_PATTERN);
/** Reissue nonces (POST /keys/reissue): `rei-` + 22 base58 characters. */
export const REISSUE_NONCE_RE = new RegExp(REISSUE_NONCE_PATTERN);

/** GET /pricing. */
export interface Pricing {
  readonly activeSubs: number;
  readonly tokenNow: number;
  readonly nextThreshold: number | null;
  readonly tokenAtNextThreshold: number | null;
  readonly treasury: string;
  readonly tokenMint: string;
}

export interface SubscribeStartRequest {
  readonly ownerPubkey: string;
  readonly plan?: Plan;
  readonly referralCode?: string;
  /**
   * When true (default false) the nonce is redeemable only by a signed PUT: an unsigned
   * one answers 403 signature_required, so nobody who copies the payment from the chain
   * can redeem it first. Every Gridlab client sets it.
   */
  readonly requireSignature?: boolean;
}

export interface SubscriptionStart {
  readonly nonce: string;
  readonly priceToken: number;
  readonly instructions: { readonly to: string; readonly memo: string; readonly amountBaseUnits: string; readonly mint: string };
  readonly expiresAt: string;
}

export interface SubscribeCompleteRequest {
  readonly nonce: string;
  readonly txSig: string;
  readonly ownerPubkey: string;
  /**
   * Optional, with `message`: the owner's ed25519 signature of `message`, the text
   * subscribeMessage() builds. A signed redemption cannot be front-run: it is required
   * once the owner holds a working key (or the nonce asked for it), and a signed retry
   * after a lost reply takes the key back once (SPEC 5, issues 12 and 33).
   */
  readonly signatureBase64?: string;
  /** The signed text (subscribeMessage): required with `signatureBase64`. */
  readonly message?: string;
}

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

export interface IssuedKeyReply {
  readonly apiKey: string;
  readonly subscriberId: string;
  readonly paidUntil: string;
}

export interface ReissueStartRequest {
  readonly ownerPubkey: string;
}

export interface ReissueStart {
  readonly nonce: string;
  readonly message: string;
  readonly expiresAt: string;
}

export interface ReissueCompleteRequest {
  readonly nonce: string;
  readonly ownerPubkey: string;
  readonly signatureBase64: string;
}

/** Revoke one key by its hash (the gateway's key-sharing policy `revoke`). */
export interface KeyRevokeRequest {
  readonly keyHash: string;
  readonly reason: 'key_sharing';
}

export interface KeyRevokeReply {
  readonly revoked: boolean;
}

/**
 * A key was revoked (replaced, reissued, taken back, shared, or by an operator): core
 * NATS, from billing's revocation outbox after its Redis tombstone landed. Gateways drop
 * the key from their in-process cache and close its open streams. Only the key's HMAC.
 */
export interface KeyRevoked {
  readonly keyHash: string;
  readonly revokedAt: string;
}

/**
 * Ends the dashboard sessions of a subscriber signed in at `epoch` or before (sign-out):
 * billing raises the subscriber's session epoch past it, durably, then announces it.
 */
export interface SessionEndRequest {
  readonly subscriberId: string;
  readonly epoch: number;
}

/** The subscriber's session epoch after the sign-out: sessions signed in below it are over. */
export interface SessionEndReply {
  readonly subscriberId: string;
  readonly epoch: number;
}

/**
 * Dashboard sessions of a subscriber signed in below `epoch` are over (core NATS, after
 * billing's commit): gateways refuse them and close their streams and dumps at once.
 */
export interface SessionEnded {
  readonly subscriberId: string;
  readonly epoch: number;
  readonly endedAt: string;
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

/**
 * A command's failure on the bus, with no HTTP in it: the kind of failure, a stable code,
 * whether retrying can help, and the field errors of an input. Only the gateway maps a
 * kind to an HTTP status; a durable consumer uses `retryable` (nak with a delay, or
 * terminate).
 */
export interface CommandError {
  readonly kind: (typeof COMMAND_ERROR_KINDS)[number];
  readonly code: string;
  readonly detail: string;
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;
  readonly errors?: readonly { readonly path: string; readonly message: string }[];
}

/** Every billing reply: the result, or the error to relay. */
export type CommandReply<T> = { readonly ok: true; readonly result: T } | { readonly ok: false; readonly error: CommandError };

/** A subscription was activated, renewed (payment or operator grant) or expired. No wallet key. */
export interface SubscriptionFact {
  readonly factId: string;
  readonly action: 'activated' | 'renewed' | 'expired';
  readonly plan: 'monthly' | 'annual' | 'grant';
  readonly subscriberId: string;
  readonly paidUntil: string;
  readonly activeSubs: number;
  readonly ts: string;
}

/** The active subscription count crossed a pricing threshold. */
export interface TierFact {
  readonly factId: string;
  readonly activeSubs: number;
  readonly tokenNow: number;
  readonly direction: 'up' | 'down';
  readonly ts: string;
}

export const pricingRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:pricing-request',
  type: 'object',
  additionalProperties: false,
  properties: {},
};

export const pricingSchema: SchemaObject = {
  $id: 'urn:gridlab:pricing',
  type: 'object',
  additionalProperties: false,
  required: ['activeSubs', 'tokenNow', 'nextThreshold', 'tokenAtNextThreshold', 'treasury', 'tokenMint'],
  properties: {
    activeSubs: { type: 'integer', minimum: 0 },
    tokenNow: { type: 'number', minimum: 0 },
    nextThreshold: { type: ['integer', 'null'], minimum: 1 },
    tokenAtNextThreshold: { type: ['number', 'null'], minimum: 0 },
    treasury: pubkey,
    tokenMint: pubkey,
  },
};

export const subscribeStartRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:subscribe-start-request',
  type: 'object',
  additionalProperties: false,
  required: ['ownerPubkey'],
  properties: { ownerPubkey: pubkey, plan, referralCode: { type: 'string', minLength: 1, maxLength: 64 }, requireSignature: { type: 'boolean' } },
};

export const subscriptionStartSchema: SchemaObject = {
  $id: 'urn:gridlab:subscription-start',
  type: 'object',
  additionalProperties: false,
  required: ['nonce', 'priceToken', 'instructions', 'expiresAt'],
  properties: {
    nonce: { type: 'string', pattern: PAYMENT_NONCE_PATTERN },
    priceToken: { type: 'number', exclusiveMinimum: 0 },
    instructions: {
      type: 'object',
      additionalProperties: false,
      required: ['to', 'memo', 'amountBaseUnits', 'mint'],
      properties: { to: pubkey, memo: { type: 'string' }, amountBaseUnits: baseUnits, mint: pubkey },
    },
    expiresAt: isoTime,
  },
};

export const subscribeCompleteRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:subscribe-complete-request',
  type: 'object',
  additionalProperties: false,
  required: ['nonce', 'txSig', 'ownerPubkey'],
  properties: {
    nonce: { type: 'string', minLength: 1, maxLength: 64 },
    txSig: { type: 'string', minLength: 64, maxLength: 88, pattern: base58 },
    ownerPubkey: pubkey,
    signatureBase64: { type: 'string', minLength: 1, maxLength: 200 },
    message: { type: 'string', minLength: 1, maxLength: 600 },
  },
};

export const issuedKeySchema: SchemaObject = {
  $id: 'urn:gridlab:issued-key',
  type: 'object',
  additionalProperties: false,
  required: ['apiKey', 'subscriberId', 'paidUntil'],
  properties: {
    apiKey: { type: 'string', pattern: API_KEY_PATTERN },
    subscriberId,
    paidUntil: isoTime,
  },
};

export const reissueStartRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:reissue-start-request',
  type: 'object',
  additionalProperties: false,
  required: ['ownerPubkey'],
  properties: { ownerPubkey: pubkey },
};

export const reissueStartSchema: SchemaObject = {
  $id: 'urn:gridlab:reissue-start',
  type: 'object',
  additionalProperties: false,
  required: ['nonce', 'message', 'expiresAt'],
  properties: {
    nonce: { type: 'string', pattern: REISSUE_NONCE_PATTERN },
    message: { type: 'string' },
    expiresAt: isoTime,
  },
};

export const reissueCompleteRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:reissue-complete-request',
  type: 'object',
  additionalProperties: false,
  required: ['nonce', 'ownerPubkey', 'signatureBase64'],
  properties: {
    nonce: { type: 'string', minLength: 1, maxLength: 64 },
    ownerPubkey: pubkey,
    signatureBase64: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

export const keyRevokeRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:key-revoke-request',
  type: 'object',
  additionalProperties: false,
  required: ['keyHash', 'reason'],
  properties: { keyHash: { type: 'string', pattern: '^[0-9a-f]{64}$' }, reason: { type: 'string', enum: ['key_sharing'] } },
};

export const keyRevokeReplySchema: SchemaObject = {
  $id: 'urn:gridlab:key-revoke-reply',
  type: 'object',
  additionalProperties: false,
  required: ['revoked'],
  properties: { revoked: { type: 'boolean' } },
};

const sessionEpoch = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;

/** A subscriber and a session epoch: the sign-out request, and billing's reply with the epoch now. */
const subscriberEpoch = { type: 'object', additionalProperties: false, required: ['subscriberId', 'epoch'], properties: { subscriberId, epoch: sessionEpoch } } as const;

export const sessionEndRequestSchema: SchemaObject = { $id: 'urn:gridlab:session-end-request', ...subscriberEpoch };

export const sessionEndReplySchema: SchemaObject = { $id: 'urn:gridlab:session-end-reply', ...subscriberEpoch };

/** The envelope of every billing reply; `result` is checked against the command's own schema. */
export const commandReplySchema: SchemaObject = {
  $id: 'urn:gridlab:command-reply',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['ok', 'result'],
      properties: { ok: { const: true }, result: {} },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['ok', 'error'],
      properties: {
        ok: { const: false },
        error: {
          type: 'object',
          additionalProperties: false,
          required: ['kind', 'code', 'detail', 'retryable'],
          properties: {
            kind: { enum: [...COMMAND_ERROR_KINDS] },
            retryable: { type: 'boolean' },
            code: { type: 'string', pattern: '^[a-z_]+$' },
            detail: { type: 'string' },
            retryAfterSeconds: { type: 'integer', minimum: 1 },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['path', 'message'],
                properties: { path: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  ],
};

export const subscriptionFactSchema: SchemaObject = {
  $id: 'urn:gridlab:subscription-fact',
  type: 'object',
  additionalProperties: false,
  required: ['factId', 'action', 'plan', 'subscriberId', 'paidUntil', 'activeSubs', 'ts'],
  properties: {
    factId: { type: 'string', minLength: 1, maxLength: 200 },
    action: { type: 'string', enum: ['activated', 'renewed', 'expired'] },
    plan: { type: 'string', enum: ['monthly', 'annual', 'grant'] },
    subscriberId,
    paidUntil: isoTime,
    activeSubs: { type: 'integer', minimum: 0 },
    ts: isoTime,
  },
};

export const tierFactSchema: SchemaObject = {
  $id: 'urn:gridlab:tier-fact',
  type: 'object',
  additionalProperties: false,
  required: ['factId', 'activeSubs', 'tokenNow', 'direction', 'ts'],
  properties: {
    factId: { type: 'string', minLength: 1, maxLength: 200 },
    activeSubs: { type: 'integer', minimum: 0 },
    tokenNow: { type: 'number', minimum: 0 },
    direction: { type: 'string', enum: ['up', 'down'] },
    ts: isoTime,
  },
};

export const keyRevokedSchema: SchemaObject = {
  $id: 'urn:gridlab:key-revoked',
  type: 'object',
  additionalProperties: false,
  required: ['keyHash', 'revokedAt'],
  properties: {
    keyHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    revokedAt: isoTime,
  },
};

export const sessionEndedSchema: SchemaObject = {
  $id: 'urn:gridlab:session-ended',
  type: 'object',
  additionalProperties: false,
  required: ['subscriberId', 'epoch', 'endedAt'],
  properties: { subscriberId, epoch: sessionEpoch, endedAt: isoTime },
};
