/**
 * Dashboard browser sessions (the contract's `/api/live*`): a session is a signed,
 * expiring token in an HttpOnly cookie naming the API key it acts for by the key's hash
 * (never the key). Every request still authenticates that key hash, so revoking the key
 * or the end of its paid period ends the session; sign-out denies the session id until
 * the token would have expired.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface Session {
  /** Random id, what sign-out denies. */
  readonly sid: string;
  /** Hex HMAC hash of the API key the session acts for. */
  readonly keyHash: string;
  /** How the browser signed in. */
  readonly via: 'key' | 'wallet';
  /** The wallet that signed in (via wallet only). */
  readonly wallet?: string;
  /** Expiry, ms since the epoch. */
  readonly expiresAtMs: number;
}

const VERSION = 1;

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

/** `<payload>.<mac>`, both base64url. */
export function signSession(key: Buffer, session: Session): string {
  const payload = Buffer.from(JSON.stringify({ v: VERSION, ...session })).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** The session a token carries, or null when it is malformed, forged, of another version or expired. */
export function verifySession(key: Buffer, token: string, nowMs: number): Session | null {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 2048) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(key, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const s = parsed as Record<string, unknown>;
  if (s['v'] !== VERSION || typeof s['sid'] !== 'string' || typeof s['keyHash'] !== 'string' || typeof s['expiresAtMs'] !== 'number') return null;
  if (s['via'] !== 'key' && s['via'] !== 'wallet') return null;
  if (s['expiresAtMs'] <= nowMs) return null;
  return {
    sid: s['sid'],
    keyHash: s['keyHash'],
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

export interface CookieOptions {
  readonly maxAgeSeconds: number;
  /** Secure outside loopback (a browser drops Secure cookies over plain http). */
  readonly secure: boolean;
}

/** Set-Cookie for the session: HttpOnly (no page script reads it), SameSite=Strict, scoped to the dashboard API. */
export function sessionCookie(name: string, token: string, options: CookieOptions): string {
  return [`${name}=${token}`, 'Path=/api/live', 'HttpOnly', 'SameSite=Strict', `Max-Age=${options.maxAgeSeconds}`, ...(options.secure ? ['Secure'] : [])].join('; ');
}

export function clearedCookie(name: string, secure: boolean): string {
  return [`${name}=`, 'Path=/api/live', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0', ...(secure ? ['Secure'] : [])].join('; ');
}

/** True for a host name that is the local machine (cookies may then be sent over http). */
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
