import { parseSubscribeMessage } from '@gridlab/contracts';
import { ForbiddenError, InputError, UnprocessableError } from '@gridlab/errors';
import { isValidSignature } from './reissue';

/** A signed subscribe message may expire at most this far ahead: a leaked signature is useful briefly. */
const SUBSCRIBE_SIGNATURE_MAX_TTL_MS = 3600_000;

/** What a signed `PUT /subscribe` must match. */
export interface SignedRedemption {
  readonly ownerPubkey: string;
  readonly nonce: string;
  readonly txSig: string;
  readonly message: string | undefined;
  readonly signatureBase64: string;
}

/**
 * Checks a signed redemption: the message is a subscribe message for this site
 * (`publicOrigin`), owner, nonce and transaction, not expired nor expiring more than an
 * hour ahead, and signed by the owner. Throws the business error that says which part failed.
 */
export function checkSubscribeSignature(r: SignedRedemption, publicOrigin: string, nowMs: number): void {
  if (r.message === undefined) {
    throw new InputError('message is required with signatureBase64', { errors: [{ path: '/message', message: 'is required with signatureBase64' }] });
  }
  const m = parseSubscribeMessage(r.message);
  if (m === null) throw new UnprocessableError('signature_invalid', 'message is not a Gridlab subscribe message (see subscribeMessage in @gridlab/client/wallet)');
  const mismatch = (['ownerPubkey', 'nonce', 'txSig'] as const).find((f) => m[f] !== r[f]);
  if (mismatch !== undefined) throw new UnprocessableError('signature_invalid', `the message names another ${mismatch} than the request`);
  if (m.domain !== publicOrigin) {
    throw new UnprocessableError('signature_wrong_domain', `the message was made for ${m.domain}, not for this service (${publicOrigin})`);
  }
  const expiresMs = Date.parse(m.expiresAt);
  if (!Number.isFinite(expiresMs) || new Date(expiresMs).toISOString() !== m.expiresAt) {
    throw new UnprocessableError('signature_invalid', 'the message\'s expires is not an ISO 8601 UTC time (toISOString)');
  }
  if (expiresMs <= nowMs) throw new UnprocessableError('signature_expired', `the signed message expired at ${m.expiresAt}; sign a new one`);
  if (expiresMs > nowMs + SUBSCRIBE_SIGNATURE_MAX_TTL_MS) {
    throw new UnprocessableError('signature_invalid', `the message expires more than ${SUBSCRIBE_SIGNATURE_MAX_TTL_MS / 60_000} minutes ahead`);
  }
  if (!isValidSignature(r.message, r.signatureBase64, r.ownerPubkey)) {
    throw new UnprocessableError('signature_invalid', 'the signature is not an ed25519 signature of the message by ownerPubkey');
  }
}

/** 403 signature_required: an unsigned redemption of a nonce that asked for a signature, or one that would replace a working key. */
export function signatureRequired(nonceAsked: boolean): ForbiddenError {
  return new ForbiddenError(
    'signature_required',
    nonceAsked
      ? "this payment nonce was started with requireSignature: redeem it with the owner's signature (signatureBase64 and message); nothing was consumed"
      : "the owner holds a working key, which an unsigned redemption would replace: redeem with the owner's signature (signatureBase64 and message); nothing was consumed",
  );
}
