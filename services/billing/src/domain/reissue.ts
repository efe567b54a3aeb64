import { createHash } from 'node:crypto';
import { hashes, verify } from '@noble/ed25519';
import bs58 from 'bs58';

// Synchronous verification needs a SHA-512; node:crypto's is the fastest at hand.
hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * True when `signatureBase64` is the ed25519 signature of `message`'s UTF-8 bytes by
 * `ownerPubkey`. Malformed signatures or keys are simply not valid.
 */
export function isValidSignature(message: string, signatureBase64: string, ownerPubkey: string): boolean {
  if (!BASE64_RE.test(signatureBase64)) return false;
  const signature = Buffer.from(signatureBase64, 'base64');
  if (signature.length !== 64) return false;
  try {
    // zip215: false: strict RFC 8032 verification (no small-order keys, canonical encodings only).
    return verify(signature, new TextEncoder().encode(message), bs58.decode(ownerPubkey), { zip215: false });
  } catch {
    return false;
  }
}
