/**
 * Sign-In With Solana for the dashboard: the server hands out a message in the SIWS
 * text form (the EIP-4361 layout with a Solana account) carrying a nonce that is a MAC
 * over the wallet, the domain and the expiry, so no state is kept between the challenge
 * and the sign-in; the wallet signs the message's UTF-8 bytes with ed25519. A message
 * signs in once: the caller consumes its nonce (see SiwsNonces).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashes, verify } from '@noble/ed25519';
import bs58 from 'bs58';

// Synchronous verification needs a SHA-512; node:crypto's is the fastest at hand.
hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

const SIWS_STATEMENT = 'Sign in to the Gridlab dashboard with the wallet that owns the subscription.';

export interface Challenge {
  readonly domain: string;
  readonly uri: string;
  readonly wallet: string;
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
}

function nonceFor(key: Buffer, c: Challenge, salt: string): string {
  const mac = createHmac('sha256', key).update(`${c.wallet}|${c.domain}|${c.uri}|${c.issuedAtMs}|${c.expiresAtMs}|${salt}`).digest().subarray(0, 18);
  return `${salt}${mac.toString('base64url')}`;
}

export function siwsMessage(key: Buffer, c: Challenge): string {
  const salt = randomBytes(9).toString('base64url');
  return render(c, nonceFor(key, c, salt));
}

function render(c: Challenge, nonce: string): string {
  return [
    `${c.domain} wants you to sign in with your Solana account:`,
    c.wallet,
    '',
    SIWS_STATEMENT,
    '',
    `URI: ${c.uri}`,
    'Version: 1',
    'Chain ID: mainnet',
    `Nonce: ${nonce}`,
    `Issued At: ${new Date(c.issuedAtMs).toISOString()}`,
    `Expiration Time: ${new Date(c.expiresAtMs).toISOString()}`,
  ].join('\n');
}

const MESSAGE_RE =
  /^(?<domain>[^\s]+) wants you to sign in with your Solana account:\n(?<wallet>[1-9A-HJ-NP-Za-km-z]{32,44})\n\n(?<statement>[^\n]*)\n\nURI: (?<uri>[^\n]+)\nVersion: 1\nChain ID: mainnet\nNonce: (?<nonce>[A-Za-z0-9_-]{36})\nIssued At: (?<issued>[^\n]+)\nExpiration Time: (?<expires>[^\n]+)$/;

export type SiwsVerdict =
  | { readonly ok: true; readonly wallet: string; readonly nonce: string; readonly expiresAtMs: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks a signed sign-in message: issued by this server (nonce), for this domain and
 * wallet, not expired, and signed by the wallet.
 */
export function verifySiws(key: Buffer, input: { message: string; signatureBase64: string; wallet: string; domain: string; nowMs: number }): SiwsVerdict {
  const m = MESSAGE_RE.exec(input.message)?.groups;
  if (m === undefined) return { ok: false, reason: 'the message is not a Gridlab sign-in message' };
  if (m['statement'] !== SIWS_STATEMENT) return { ok: false, reason: 'the message is not a Gridlab sign-in message' };
  if (m['wallet'] !== input.wallet) return { ok: false, reason: 'the message names another wallet' };
  if (m['domain'] !== input.domain) return { ok: false, reason: 'the message was made for another site' };
  const issuedAtMs = Date.parse(m['issued']!);
  const expiresAtMs = Date.parse(m['expires']!);
  if (!Number.isFinite(issuedAtMs) || !Number.isFinite(expiresAtMs)) return { ok: false, reason: 'the message is not a Gridlab sign-in message' };
  const nonce = m['nonce']!;
  const expected = nonceFor(key, { domain: m['domain'], uri: m['uri']!, wallet: input.wallet, issuedAtMs, expiresAtMs }, nonce.slice(0, 12));
  if (expected.length !== nonce.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(nonce))) {
    return { ok: false, reason: 'the message was not issued by this server' };
  }
  if (expiresAtMs <= input.nowMs) return { ok: false, reason: 'the sign-in message has expired; ask for a new one' };
  let signature: Uint8Array;
  let publicKey: Uint8Array;
  try {
    signature = Buffer.from(input.signatureBase64, 'base64');
    publicKey = bs58.decode(input.wallet);
  } catch {
    return { ok: false, reason: 'the signature is not an ed25519 signature of the message by the wallet' };
  }
  let valid = false;
  try {
    valid = signature.length === 64 && publicKey.length === 32 && verify(signature, new TextEncoder().encode(input.message), publicKey, { zip215: false });
  } catch {
    valid = false;
  }
  return valid ? { ok: true, wallet: input.wallet, nonce, expiresAtMs } : { ok: false, reason: 'the signature is not an ed25519 signature of the message by the wallet' };
}
