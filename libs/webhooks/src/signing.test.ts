import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { isSecret, newSecret, signDelivery } from './signing';

/** Standard Webhooks 1.0, by hand: HMAC-SHA256 of `id.timestamp.body` keyed by the secret's base64 after `whsec_`. */
function expected(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('signDelivery', () => {
  const body = JSON.stringify({ type: 'motherlode', pool: 123 });
  const at = new Date('2026-11-29T06:00:00.000Z');

  it('writes the three headers as the specification computes them', () => {
    const secret = newSecret();
    const headers = signDelivery([secret], 'msg_1', at, body);
    expect(headers).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1795932000', 'webhook-signature': expected(secret, 'msg_1', '1795932000', body) });
  });

  it('signs with every secret of a rotation, so a receiver holding either verifies it', () => {
    const [old, next] = [newSecret(), newSecret()];
    const headers = signDelivery([old, next], 'msg_2', new Date(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [old, next]) expect(() => new Webhook(secret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(old).verify(`${body} `, { ...headers })).toThrow();
  });

  it('refuses to sign with no secret', () => {
    expect(() => signDelivery([], 'msg_3', at, body)).toThrow(RangeError);
  });
});

describe('newSecret', () => {
  it('gives whsec_ and 32 random bytes, different each time', () => {
    const [a, b] = [newSecret(), newSecret()];
    expect(isSecret(a)).toBe(true);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(isSecret('whsec_short')).toBe(false);
  });
});
