import { clearedCookie, cookieValue, derivedKey, isLoopbackHost, newSessionId, parseSessionSecrets, sameOrigin, sessionCookie, sessionCookiePolicy, signSession, verifySession, type Session } from './session';

const A = `a1:${'s'.repeat(40)}`;
const B = `b2:${'t'.repeat(40)}`;
const KEYS = parseSessionSecrets(A);
const NOW = Date.UTC(2026, 10, 24, 8);
const SESSION: Session = { sid: newSessionId(), keyHash: 'ab'.repeat(32), subscriberId: 'sub_aaaaaaaaaaaaaaaaaaaaaa', epoch: 3, via: 'key', expiresAtMs: NOW + 60_000 };

describe('session tokens', () => {
  it('round-trip, and refuse a forged, truncated, expired or foreign-keyed token', () => {
    const token = signSession(KEYS, SESSION);
    expect(token.startsWith('a1.')).toBe(true);
    expect(verifySession(KEYS, token, NOW)).toEqual(SESSION);
    const wallet = { ...SESSION, via: 'wallet' as const, wallet: '11111111111111111111111111111111' };
    expect(verifySession(KEYS, signSession(KEYS, wallet), NOW)).toEqual(wallet);
    const [kid, payload, mac] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ v: 2, ...SESSION, epoch: 9 })).toString('base64url');
    expect(verifySession(KEYS, `${kid}.${forged}.${mac}`, NOW)).toBeNull();
    expect(verifySession(KEYS, `${kid}.${payload}.${mac.slice(0, -2)}`, NOW)).toBeNull();
    expect(verifySession(KEYS, `${kid}.${payload}`, NOW)).toBeNull();
    expect(verifySession(KEYS, `${payload}.${mac}`, NOW)).toBeNull();
    expect(verifySession(KEYS, `${token}.x`, NOW)).toBeNull();
    expect(verifySession(KEYS, token, SESSION.expiresAtMs)).toBeNull();
    expect(verifySession(parseSessionSecrets(B), token, NOW)).toBeNull();
    expect(verifySession(KEYS, 'x'.repeat(3000), NOW)).toBeNull();
    // Renaming the key id moves nothing: the MAC covers it.
    expect(verifySession(parseSessionSecrets(`${A},b2:${'s'.repeat(40)}`), `b2.${payload}.${mac}`, NOW)).toBeNull();
  });

  it('rotate: a new key signs, the old one still verifies until it is dropped, and dropping it ends its sessions', () => {
    const old = signSession(KEYS, SESSION);
    const rotated = parseSessionSecrets(`${B},${A}`);
    const fresh = signSession(rotated, SESSION);
    expect(fresh.startsWith('b2.')).toBe(true);
    expect(verifySession(rotated, old, NOW)).toEqual(SESSION);
    expect(verifySession(rotated, fresh, NOW)).toEqual(SESSION);
    const dropped = parseSessionSecrets(B);
    expect(verifySession(dropped, old, NOW)).toBeNull();
    expect(verifySession(dropped, fresh, NOW)).toEqual(SESSION);
    // Sign-in nonces follow the signing secret.
    expect(rotated.siws.equals(dropped.siws)).toBe(true);
    expect(rotated.siws.equals(KEYS.siws)).toBe(false);
  });

  it('SESSION_SECRET is kid:secret[,kid:secret...] with secrets of 32 characters or more', () => {
    for (const bad of ['', 's'.repeat(40), `a1:${'s'.repeat(31)}`, `a b:${'s'.repeat(40)}`, `${A},${A}`, `${A},`]) {
      expect(() => parseSessionSecrets(bad)).toThrow(/SESSION_SECRET/);
    }
    expect([...parseSessionSecrets(`${A},${B}`).byKid.keys()]).toEqual(['a1', 'b2']);
  });

  it('keys derived for different purposes differ', () => {
    expect(derivedKey('s'.repeat(40), 'a').equals(derivedKey('s'.repeat(40), 'b'))).toBe(false);
  });
});

describe('cookies', () => {
  it('for an https PUBLIC_ORIGIN: the __Host- name, Secure, Path=/ and no Domain, HttpOnly, SameSite=Strict', () => {
    const policy = sessionCookiePolicy('https://gridlab.example');
    expect(policy).toEqual({ name: '__Host-gridlab_session', path: '/', secure: true });
    expect(sessionCookie(policy, 'tok', 60)).toBe('__Host-gridlab_session=tok; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure');
    expect(clearedCookie(policy)).toBe('__Host-gridlab_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
    expect(sessionCookie(policy, 'tok', 60)).not.toContain('Domain');
    // Whatever the port or loopback-ness of the https origin: the origin decides, nothing else.
    expect(sessionCookiePolicy('https://127.0.0.1:8443')).toEqual(policy);
  });

  it('for an http PUBLIC_ORIGIN (local development): a plain name without Secure, scoped to /api/live', () => {
    const policy = sessionCookiePolicy('http://127.0.0.1:8080');
    expect(policy).toEqual({ name: 'gridlab_session', path: '/api/live', secure: false });
    expect(sessionCookie(policy, 'tok', 60)).toBe('gridlab_session=tok; Path=/api/live; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(clearedCookie(policy)).toBe('gridlab_session=; Path=/api/live; HttpOnly; SameSite=Strict; Max-Age=0');
  });

  it('reads a cookie by its exact name only', () => {
    expect(cookieValue('a=1; gl=tok.mac; b=2', 'gl')).toBe('tok.mac');
    expect(cookieValue('a=1', 'gl')).toBeUndefined();
    expect(cookieValue(undefined, 'gl')).toBeUndefined();
    expect(cookieValue('gridlab_session=tok', '__Host-gridlab_session')).toBeUndefined();
    expect(cookieValue('__host-gridlab_session=tok; x__Host-gridlab_session=tok', '__Host-gridlab_session')).toBeUndefined();
    expect(cookieValue('gridlab_session=old; __Host-gridlab_session=new', '__Host-gridlab_session')).toBe('new');
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
