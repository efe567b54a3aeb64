import { API_KEY_RE, PAYMENT_NONCE_RE, REISSUE_NONCE_RE, SUBSCRIBER_ID_RE } from '@gridlab/contracts';
import { newApiKey, newNonce, newSubscriberId, randomBase58 } from './ids';
import { hashApiKey } from './key-hash';

describe('ids', () => {
  it('issues keys, subscriber ids and nonces in their documented formats', () => {
    for (let i = 0; i < 200; i++) {
      expect(newApiKey()).toMatch(API_KEY_RE);
      expect(newSubscriberId()).toMatch(SUBSCRIBER_ID_RE);
      expect(newNonce('pay')).toMatch(PAYMENT_NONCE_RE);
      expect(newNonce('rei')).toMatch(REISSUE_NONCE_RE);
    }
  });

  it('draws every base58 character and nothing else', () => {
    let n = 0;
    const s = randomBase58(58, () => n++ % 58);
    expect(new Set(s).size).toBe(58);
    expect(s).not.toMatch(/[0OIl]/);
  });

  it('never issues the same key twice in a large sample', () => {
    const keys = new Set(Array.from({ length: 10_000 }, () => newApiKey()));
    expect(keys.size).toBe(10_000);
  });
});

describe('hashApiKey', () => {
  it('depends on both the secret and the key', () => {
    const key = newApiKey();
    expect(hashApiKey('s1', key).equals(hashApiKey('s1', key))).toBe(true);
    expect(hashApiKey('s1', key).equals(hashApiKey('s2', key))).toBe(false);
    expect(hashApiKey('s1', key).equals(hashApiKey('s1', newApiKey()))).toBe(false);
    expect(hashApiKey('s1', key)).toHaveLength(32);
  });
});
