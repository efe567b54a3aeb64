import { clearedCookie, cookieValue, derivedKey, isLoopbackHost, newSessionId, sameOrigin, sessionCookie, signSession, verifySession, type Session } from './session';

const KEY = derivedKey('s'.repeat(40), 'dashboard-session');
const NOW = Date.UTC(2026, 10, 24, 8);
const SESSION: Session = { sid: newSessionId(), keyHash: 'ab'.repeat(32), via: 'key', expiresAtMs: NOW + 60_000 };

describe('session tokens', () => {
  it('round-trip, and refuse a forged, truncated, expired or foreign-keyed token', () => {
    const token = signSession(KEY, SESSION);
    expect(verifySession(KEY, token, NOW)).toEqual(SESSION);
    const wallet = { ...SESSION, via: 'wallet' as const, wallet: '11111111111111111111111111111111' };
    expect(verifySession(KEY, signSession(KEY, wallet), NOW)).toEqual(wallet);
    const [payload, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ v: 1, ...SESSION, keyHash: 'cd'.repeat(32) })).toString('base64url');
    expect(verifySession(KEY, `${forged}.${mac}`, NOW)).toBeNull();
    expect(verifySession(KEY, `${payload}.${mac.slice(0, -2)}`, NOW)).toBeNull();
    expect(verifySession(KEY, payload, NOW)).toBeNull();
    expect(verifySession(KEY, token, SESSION.expiresAtMs)).toBeNull();
    expect(verifySession(derivedKey('t'.repeat(40), 'dashboard-session'), token, NOW)).toBeNull();
    expect(verifySession(KEY, 'x'.repeat(3000), NOW)).toBeNull();
  });

  it('keys derived for different purposes differ', () => {
    expect(derivedKey('s'.repeat(40), 'a').equals(derivedKey('s'.repeat(40), 'b'))).toBe(false);
  });
});

describe('cookies', () => {
  it('are HttpOnly, SameSite=Strict, scoped to /api/live, Secure when asked', () => {
    expect(sessionCookie('gl', 'tok', { maxAgeSeconds: 60, secure: false })).toBe('gl=tok; Path=/api/live; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(sessionCookie('gl', 'tok', { maxAgeSeconds: 60, secure: true })).toMatch(/; Secure$/);
    expect(clearedCookie('gl', false)).toContain('Max-Age=0');
    expect(cookieValue('a=1; gl=tok.mac; b=2', 'gl')).toBe('tok.mac');
    expect(cookieValue('a=1', 'gl')).toBeUndefined();
    expect(cookieValue(undefined, 'gl')).toBeUndefined();
  });

  it('loopback hosts are recognised', () => {
    expect(['127.0.0.1:8080', 'localhost', '[::1]:8080', '127.1.2.3'].map(isLoopbackHost)).toEqual([true, true, true, true]);
    expect(['gridlab.example', '10.0.0.1:8080'].map(isLoopbackHost)).toEqual([false, false]);
  });
});

describe('sameOrigin', () => {
  const site = ['https://gridlab.example'];
  it('accepts the configured origins, or a same-origin fetch without Origin, and nothing else', () => {
    expect(sameOrigin({ origin: 'https://gridlab.example' }, site)).toBe(true);
    expect(sameOrigin({ origin: 'https://app.example' }, [...site, 'https://app.example'])).toBe(true);
    expect(sameOrigin({ origin: 'https://evil.example' }, site)).toBe(false);
    expect(sameOrigin({ origin: 'http://gridlab.example' }, site)).toBe(false);
    expect(sameOrigin({ origin: 'null' }, site)).toBe(false);
    expect(sameOrigin({ secFetchSite: 'same-origin' }, site)).toBe(true);
    expect(sameOrigin({ secFetchSite: 'cross-site' }, site)).toBe(false);
    expect(sameOrigin({}, site)).toBe(false);
  });
});
