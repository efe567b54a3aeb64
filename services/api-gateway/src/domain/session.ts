/**
 * Dashboard browser sessions (the contract's `/api/live*`): a session is a signed,
 * expiring token in an HttpOnly cookie naming the API key it acts for by the key's hash
 * (never the key) and the subscriber's session epoch when it began. Every request still
 * authenticates that key hash, so revoking the key or the end of its paid period ends the
 * session; sign-out raises the subscriber's epoch (app/session-guard), which ends it too.
 * Tokens are signed with SESSION_SECRET's current key and name its key id, so the secret
 * rotates without cutting sessions short, and dropping a key ends every session it signed.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface Session {
  /** Random id, what sign-out denies. */
  readonly sid: string;
  /** Hex HMAC hash of the API key the session acts for. */
  readonly keyHash: string;
  /** The subscriber of that key. */
  readonly subscriberId: string;
  /** The subscriber's session epoch at sign-in: the session is over once the epoch is higher. */
  readonly epoch: number;
  /** How the browser signed in. */
  readonly via: 'key' | 'wallet';
  /** The wallet that signed in (via wallet only). */
  readonly wallet?: string;
  /** Expiry, ms since the epoch. */
  readonly expiresAtMs: number;
}

const VERSION = 2;
const KID_RE = /^[A-Za-z0-9_-]{1,32}$/;
const MIN_SECRET_LENGTH = 32;

/** The session MAC keys by key id; `signing` signs new sessions, every key verifies. */
export interface SessionKeys {
  readonly signing: { readonly kid: string; readonly key: Buffer };
  readonly byKid: ReadonlyMap<string, Buffer>;
  /** The MAC key of Sign-In With Solana nonces (from the signing secret). */
  readonly siws: Buffer;
}

/**
 * SESSION_SECRET: `kid:secret[,kid:secret...]`, the first entry signing new sessions and
 * every entry verifying (rotation: put the new key first, drop the old one once its
 * sessions have expired; dropping every key ends every session).
 */
export function parseSessionSecrets(value: string): SessionKeys {
  const entries = value.split(',').map((entry) => {
    const colon = entry.indexOf(':');
    const kid = colon < 0 ? '' : entry.slice(0, colon);
    const secret = colon < 0 ? '' : entry.slice(colon + 1);
    if (!KID_RE.test(kid) || secret.length < MIN_SECRET_LENGTH) {
      throw new RangeError(`SESSION_SECRET must be kid:secret[,kid:secret...] (kid of letters, digits, _ or -; secret of at least ${MIN_SECRET_LENGTH} characters)`);
    }
    return { kid, secret };
  });
  const byKid = new Map<string, Buffer>();
  for (const { kid, secret } of entries) {
    if (byKid.has(kid)) throw new RangeError(`SESSION_SECRET names key id ${kid} twice`);
    byKid.set(kid, derivedKey(secret, 'dashboard-session'));
  }
  const first = entries[0]!;
  return { signing: { kid: first.kid, key: byKid.get(first.kid)! }, byKid, siws: derivedKey(first.secret, 'dashboard-siws') };
}

/** A key derived from the server secret for one purpose, so session tokens and nonces never share a MAC key with API key hashes. */
export function derivedKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`gridlab/${purpose}/v1`).digest();
}

function mac(key: Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function newSessionId(): string {
  return randomBytes(16).toString('base64url');
}

/** `<kid>.<payload>.<mac>`, payload and MAC base64url, the MAC over `<kid>.<payload>`. */
export function signSession(keys: SessionKeys, session: Session): string {
  const signed = `${keys.signing.kid}.${Buffer.from(JSON.stringify({ v: VERSION, ...session })).toString('base64url')}`;
  return `${signed}.${mac(keys.signing.key, signed).toString('base64url')}`;
}

/** The session a token carries, or null when it is malformed, forged, of an unknown key or version, or expired. */
export function verifySession(keys: SessionKeys, token: string, nowMs: number): Session | null {
  if (token.length > 2048) return null;
  const [kid, payload, given, extra] = token.split('.');
  if (kid === undefined || payload === undefined || payload === '' || given === undefined || extra !== undefined) return null;
  const key = keys.byKid.get(kid);
  if (key === undefined) return null;
  const givenMac = Buffer.from(given, 'base64url');
  const expected = mac(key, `${kid}.${payload}`);
  if (givenMac.length !== expected.length || !timingSafeEqual(givenMac, expected)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const s = parsed as Record<string, unknown>;
  if (s['v'] !== VERSION || typeof s['sid'] !== 'string' || typeof s['keyHash'] !== 'string' || typeof s['expiresAtMs'] !== 'number') return null;
  if (typeof s['subscriberId'] !== 'string' || !Number.isSafeInteger(s['epoch'])) return null;
  if (s['via'] !== 'key' && s['via'] !== 'wallet') return null;
  if (s['expiresAtMs'] <= nowMs) return null;
  return {
    sid: s['sid'],
    keyHash: s['keyHash'],
    subscriberId: s['subscriberId'],
    epoch: s['epoch'] as number,
    via: s['via'],
    ...(typeof s['wallet'] === 'string' ? { wallet: s['wallet'] } : {}),
    expiresAtMs: s['expiresAtMs'],
  };
}

/** The value of one cookie in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The session cookie's name, path and Secure flag: the site's, one per gateway. */
export interface CookiePolicy {
  readonly name: string;
  readonly path: string;
  readonly secure: boolean;
}

const COOKIE_NAME = 'gridlab_session';

/**
 * The cookie policy of a site served at `publicOrigin` (PUBLIC_ORIGIN), never of a
 * request: its Host header is the client's to write, and a proxy in front rewrites it to
 * the gateway's own (plain http, often loopback). An https site gets `Secure` and the
 * `__Host-` prefix, which a browser accepts only with `Secure`, `Path=/` and no `Domain`,
 * so neither a plain-http page nor a sibling subdomain can set or shadow it. A plain-http
 * site (local development) gets a plain name without `Secure` (a browser drops Secure
 * cookies over http), scoped to the dashboard API.
 */
export function sessionCookiePolicy(publicOrigin: string): CookiePolicy {
  return new URL(publicOrigin).protocol === 'https:'
    ? { name: `__Host-${COOKIE_NAME}`, path: '/', secure: true }
    : { name: COOKIE_NAME, path: '/api/live', secure: false };
}

/** Set-Cookie for the session: HttpOnly (no page script reads it), SameSite=Strict, the policy's name, path and Secure. */
export function sessionCookie(policy: CookiePolicy, token: string, maxAgeSeconds: number): string {
  return [`${policy.name}=${token}`, `Path=${policy.path}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`, ...(policy.secure ? ['Secure'] : [])].join('; ');
}

/** Set-Cookie that makes the browser forget the session cookie (same name, path and Secure, or it would not match). */
export function clearedCookie(policy: CookiePolicy): string {
  return sessionCookie(policy, '', 0);
}

/** True for a host name that is the local machine (an http PUBLIC_ORIGIN is meant for one). */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/**
 * Whether a request comes from the dashboard's own page: its Origin is one of `allowed`
 * (the site's configured public origin first: never derived from the Host header, which
 * the client writes), or, where browsers send no Origin (same-origin GET), its
 * `Sec-Fetch-Site` is `same-origin`. Anything else (another site, a plain HTTP client
 * replaying the cookie without them) is refused.
 */
export function sameOrigin(headers: { readonly origin?: string | undefined; readonly secFetchSite?: string | undefined }, allowed: readonly string[]): boolean {
  if (headers.origin !== undefined) return headers.origin !== 'null' && allowed.includes(headers.origin);
  return headers.secFetchSite === 'same-origin';
}
