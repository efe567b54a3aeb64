import { getPublicKey, sign } from '@noble/ed25519';
import bs58 from 'bs58';
import { derivedKey } from './session';
import { siwsMessage, verifySiws } from './siws';

const KEY = derivedKey('s'.repeat(40), 'siws');
const NOW = Date.UTC(2026, 10, 24, 8);
const SECRET = new Uint8Array(32).fill(7);
const WALLET = bs58.encode(getPublicKey(SECRET));
const CHALLENGE = { domain: '127.0.0.1:8080', uri: 'http://127.0.0.1:8080', wallet: WALLET, issuedAtMs: NOW, expiresAtMs: NOW + 300_000 };

function signed(message: string, secret = SECRET): string {
  return Buffer.from(sign(new TextEncoder().encode(message), secret)).toString('base64');
}

describe('Sign-In With Solana', () => {
  it('accepts the wallet signing a message this server issued, for this domain, in time', () => {
    const message = siwsMessage(KEY, CHALLENGE);
    expect(message.split('\n')[0]).toBe('127.0.0.1:8080 wants you to sign in with your Solana account:');
    expect(verifySiws(KEY, { message, signatureBase64: signed(message), wallet: WALLET, domain: CHALLENGE.domain, nowMs: NOW + 1000 })).toEqual({ ok: true, wallet: WALLET, nonce: expect.stringMatching(/^[A-Za-z0-9_-]{36}$/), expiresAtMs: CHALLENGE.expiresAtMs });
  });

  it('refuses another signer, an altered message, another domain, another wallet, an expired or foreign message', () => {
    const message = siwsMessage(KEY, CHALLENGE);
    const ok = { message, signatureBase64: signed(message), wallet: WALLET, domain: CHALLENGE.domain, nowMs: NOW + 1000 };
    const reason = (input: typeof ok) => {
      const v = verifySiws(KEY, input);
      return v.ok ? 'ok' : v.reason;
    };
    expect(reason({ ...ok, signatureBase64: signed(message, new Uint8Array(32).fill(8)) })).toMatch(/not an ed25519 signature/);
    expect(reason({ ...ok, signatureBase64: 'not base64!' })).toMatch(/not an ed25519 signature/);
    const later = message.replace(/Expiration Time: .*/, `Expiration Time: ${new Date(NOW + 86_400_000).toISOString()}`);
    expect(reason({ ...ok, message: later, signatureBase64: signed(later) })).toBe('the message was not issued by this server');
    expect(reason({ ...ok, domain: 'evil.example' })).toBe('the message was made for another site');
    expect(reason({ ...ok, wallet: bs58.encode(getPublicKey(new Uint8Array(32).fill(9))) })).toBe('the message names another wallet');
    expect(reason({ ...ok, nowMs: CHALLENGE.expiresAtMs })).toMatch(/expired/);
    expect(reason({ ...ok, message: 'hello' })).toBe('the message is not a Gridlab sign-in message');
    const foreign = siwsMessage(derivedKey('t'.repeat(40), 'siws'), CHALLENGE);
    expect(reason({ ...ok, message: foreign, signatureBase64: signed(foreign) })).toBe('the message was not issued by this server');
  });
});
