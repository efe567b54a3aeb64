import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64 (shown to its owner once). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const SECRET_RE = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** Whether `text` has the form `newSecret` gives (the stored form is checked before use). */
export function isSecret(text: string): boolean {
  return SECRET_RE.test(text);
}

/** The three headers of a Standard Webhooks 1.0 delivery. */
export interface SignedHeaders {
  readonly 'webhook-id': string;
  readonly 'webhook-timestamp': string;
  readonly 'webhook-signature': string;
}

/**
 * Signs `body` for delivery `id` sent at `at`: `webhook-signature` holds a `v1,<base64>`
 * signature for each of `secrets`, space-separated, so that while a rotated secret's
 * overlap lasts a receiver holding either the old secret or the new one verifies it.
 */
export function signDelivery(secrets: readonly string[], id: string, at: Date, body: string): SignedHeaders {
  if (secrets.length === 0) throw new RangeError('a delivery is signed with at least one secret');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, at, body));
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signatures.join(' ') };
}
