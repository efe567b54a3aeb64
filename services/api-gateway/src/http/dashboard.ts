/**
 * The dashboard's side of the gateway (the contract's `/api/live*`, for browser sessions
 * only): sign-in with an API key or a wallet signature (Sign-In With Solana) sets an
 * HttpOnly, SameSite=Strict session cookie; every `/api/live/<path>` request then needs
 * that session and a matching Origin, and is served as `/api/v1/<path>` for the session's
 * key. The built pages are served at `/`.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { AuthError, ForbiddenError, InputError, NotFoundError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { DashboardConfig, SessionChallenge, SessionInfo } from '@gridlab/contracts';
import express from 'express';
import type { Access, Caller } from '../app/access';
import type { SiwsNonces, WalletKeys } from '../app/ports';
import type { SessionGuard } from '../app/session-guard';
import {
  clearedCookie,
  cookieValue,
  isLoopbackHost,
  newSessionId,
  sameOrigin,
  sessionCookie,
  sessionCookiePolicy,
  signSession,
  verifySession,
  type CookiePolicy,
  type Session,
  type SessionKeys,
} from '../domain/session';
import { siwsMessage, verifySiws } from '../domain/siws';

const DASHBOARD_API = '/api/live';
const SESSION_PATH = `${DASHBOARD_API}/session`;
const CHALLENGE_TTL_MS = 5 * 60_000;
const WALLET_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export interface DashboardDeps {
  readonly access: Access;
  readonly wallets: WalletKeys;
  /** Whether a session was signed out (the subscriber's session epoch), and sign-out itself. */
  readonly sessions: SessionGuard;
  /** Sign-in messages already used (a message signs in once). */
  readonly siwsNonces: SiwsNonces;
  /** The session and sign-in MAC keys (SESSION_SECRET), never derived from the API key secret. */
  readonly keys: SessionKeys;
  readonly sessionTtlMs: number;
  /** Origins besides PUBLIC_ORIGIN allowed to call /api/live (a dashboard served elsewhere). */
  readonly allowedOrigins: readonly string[];
  readonly clientAddress: (req: IncomingMessage) => string;
  /** An RPC URL the page may use for wallet payments (empty: none). */
  readonly publicRpcUrl: string;
  /**
   * The site's public origin (PUBLIC_ORIGIN): the origin the dashboard's requests must come
   * from, the domain and URI its sign-in messages name, and the domain the page's signed
   * subscribe messages name. Never the request's Host header, which the client writes.
   */
  readonly publicOrigin: string;
  readonly logger: Logger;
  readonly now?: () => number;
}

const sessions = new WeakMap<IncomingMessage, Session>();

/** The dashboard session a request was admitted with (it then acts for the session's key). */
export function sessionOf(req: IncomingMessage): Session | undefined {
  return sessions.get(req);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function isDashboardPath(url: string): boolean {
  return url === DASHBOARD_API || url.startsWith(`${DASHBOARD_API}/`) || url.startsWith(`${DASHBOARD_API}?`);
}

const CONFIG_PATH = `${DASHBOARD_API}/config`;

/** The dashboard paths that need no session (Origin still checked): the session routes and the page's settings. */
export function isOpenDashboardPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return path === SESSION_PATH || path.startsWith(`${SESSION_PATH}/`) || path === CONFIG_PATH;
}

export class Dashboard {
  private readonly now: () => number;

  private readonly siteDomain: string;
  private readonly origins: readonly string[];
  /** From PUBLIC_ORIGIN, never from a request's Host (which a proxy rewrites). */
  private readonly cookie: CookiePolicy;

  constructor(private readonly deps: DashboardDeps) {
    this.now = deps.now ?? Date.now;
    this.siteDomain = new URL(deps.publicOrigin).host;
    this.origins = [new URL(deps.publicOrigin).origin, ...deps.allowedOrigins];
    this.cookie = sessionCookiePolicy(deps.publicOrigin);
    if (!this.cookie.secure && !isLoopbackHost(this.siteDomain)) {
      deps.logger.warn('PUBLIC_ORIGIN is plain http on a host that is not this machine: dashboard session cookies are not Secure; set the https origin clients use', { publicOrigin: deps.publicOrigin });
    }
  }

  /** 403 origin_mismatch unless the request comes from the dashboard's page at PUBLIC_ORIGIN (CSRF defence). */
  checkOrigin(req: IncomingMessage): void {
    const ok = sameOrigin({ origin: header(req, 'origin'), secFetchSite: header(req, 'sec-fetch-site') }, this.origins);
    if (!ok) throw new ForbiddenError('origin_mismatch', 'dashboard requests must come from the dashboard page (Origin or Sec-Fetch-Site)');
  }

  /**
   * The request's session as its cookie carries it (signed by us, not expired), or 401
   * session_required. Whether it was signed out since is the request path's to check
   * (app/access.ts), with the key it acts for.
   */
  session(req: IncomingMessage): Session {
    // The policy's name only: a cookie of another name (one a plain-http page could set) is no session.
    const token = cookieValue(header(req, 'cookie'), this.cookie.name);
    const session = token === undefined ? null : verifySession(this.deps.keys, token, this.now());
    if (session === null) throw new AuthError('session_required', 'sign in to the dashboard first (the session is missing or has expired)');
    return session;
  }

  /**
   * Admits a `/api/live/<path>` data request: checks the Origin and the cookie, then
   * rewrites it to `/api/v1/<path>`, where it is let through as the session's key.
   */
  admit(req: IncomingMessage): void {
    this.checkOrigin(req);
    admitSession(req, this.session(req));
    req.url = `/api/v1${(req.url ?? '').slice(DASHBOARD_API.length)}`;
  }

  /** The page's settings: where a wallet payment is sent, and the origin its signed messages name. */
  config(): DashboardConfig {
    return { rpcUrl: this.deps.publicRpcUrl === '' ? null : this.deps.publicRpcUrl, publicOrigin: this.deps.publicOrigin };
  }

  /** A Sign-In With Solana message for the wallet in `body`, naming this site. */
  challenge(body: unknown): SessionChallenge {
    const wallet = walletOf(body);
    const nowMs = this.now();
    const message = siwsMessage(this.deps.keys.siws, { domain: this.siteDomain, uri: this.origins[0]!, wallet, issuedAtMs: nowMs, expiresAtMs: nowMs + CHALLENGE_TTL_MS });
    return { message, expiresAt: new Date(nowMs + CHALLENGE_TTL_MS).toISOString() };
  }

  /** Signs in with `{ apiKey }` or `{ wallet, message, signatureBase64 }`: the session's cookie and what it shows. */
  async signIn(body: unknown, req: IncomingMessage): Promise<{ cookie: string; info: SessionInfo }> {
    const fields = (body ?? {}) as Record<string, unknown>;
    const address = this.deps.clientAddress(req);
    let started: { caller: Caller; via: Session['via']; wallet?: string };
    if (typeof fields['apiKey'] === 'string') {
      started = { caller: await this.deps.access.admit({ authorization: `Bearer ${fields['apiKey']}` }, address), via: 'key' };
    } else if (fields['wallet'] !== undefined) {
      const wallet = walletOf(fields);
      const message = stringField(fields, 'message');
      const signatureBase64 = stringField(fields, 'signatureBase64');
      const verdict = verifySiws(this.deps.keys.siws, { message, signatureBase64, wallet, domain: this.siteDomain, nowMs: this.now() });
      if (!verdict.ok) throw new AuthError('invalid_signature', verdict.reason);
      const key = await this.deps.wallets.activeKeyOf(wallet);
      if (key === null) throw new NotFoundError('no_subscription', 'this wallet has no active API key: subscribe first');
      // A signed message signs in once (a copy of it, seen in transit or in a log, is worthless).
      if (!(await this.deps.siwsNonces.consume(verdict.nonce, verdict.expiresAtMs))) {
        throw new AuthError('invalid_signature', 'this sign-in message was used already; ask for a new one');
      }
      started = { caller: await this.deps.access.admit({ keyHash: key.keyHash }, address), via: 'wallet', wallet };
    } else {
      throw new InputError('send { apiKey } or { wallet, message, signatureBase64 }', {
        errors: [{ path: '/apiKey', message: 'is required unless signing in with a wallet' }],
      });
    }
    const epoch = await this.deps.sessions.epochOf(started.caller.subscriberId);
    const nowMs = this.now();
    const expiresAtMs = Math.min(nowMs + this.deps.sessionTtlMs, started.caller.paidUntilMs);
    const session: Session = {
      sid: newSessionId(),
      keyHash: started.caller.keyHash.toString('hex'),
      subscriberId: started.caller.subscriberId,
      epoch,
      via: started.via,
      ...(started.wallet === undefined ? {} : { wallet: started.wallet }),
      expiresAtMs,
    };
    this.deps.logger.info('dashboard session started', { via: session.via, subscriberId: started.caller.subscriberId });
    const cookie = sessionCookie(this.cookie, signSession(this.deps.keys, session), Math.max(1, Math.floor((expiresAtMs - nowMs) / 1000)));
    return { cookie, info: sessionInfo(session, started.caller) };
  }

  /** The Set-Cookie value that makes the browser forget its session. */
  clearedCookie(): string {
    return clearedCookie(this.cookie);
  }

  /**
   * Sign-out: resolves only once billing has raised the subscriber's session epoch (every
   * copy of the cookie, on every replica, is then refused), else a 503 that says until
   * when the session still works elsewhere. A session already over asks billing nothing.
   */
  async signOut(req: IncomingMessage): Promise<void> {
    const token = cookieValue(header(req, 'cookie'), this.cookie.name);
    const session = token === undefined ? null : verifySession(this.deps.keys, token, this.now());
    if (session === null) return;
    try {
      await this.deps.sessions.signOut(session);
    } catch (error) {
      this.deps.logger.warn('sign-out not recorded: the session stays usable until it expires', { err: error, subscriberId: session.subscriberId });
      throw new UnavailableError(
        `this browser has forgotten the session, but the server could not end it: a copy of its cookie works until ${new Date(session.expiresAtMs).toISOString()}. Sign in and sign out again to end it`,
        { code: 'sign_out_incomplete', retryAfterSeconds: 5, cause: error },
      );
    }
    this.deps.logger.info('dashboard session signed out', { subscriberId: session.subscriberId });
  }
}

/** A request admitted with a session (it then acts for the session's key). */
export function admitSession(req: IncomingMessage, session: Session): void {
  sessions.set(req, session);
}

/** What the page is told of a session (never the key). */
export function sessionInfo(session: Session, caller: Caller): SessionInfo {
  return {
    via: session.via,
    wallet: session.wallet ?? null,
    subscriberId: caller.subscriberId,
    paidUntil: new Date(caller.paidUntilMs).toISOString(),
    expiresAt: new Date(session.expiresAtMs).toISOString(),
  };
}

function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string' || value === '') throw new InputError(`${name} is required`, { errors: [{ path: `/${name}`, message: 'must be a non-empty string' }] });
  return value;
}

function walletOf(body: unknown): string {
  const wallet = (body as Record<string, unknown> | undefined)?.['wallet'];
  if (typeof wallet !== 'string' || !WALLET_RE.test(wallet)) {
    throw new InputError('wallet must be a base58 Solana address', { errors: [{ path: '/wallet', message: 'must be a base58 Solana address' }] });
  }
  return wallet;
}

/**
 * The built dashboard (services/web/dist) at `/`: hashed assets cached for a year, the
 * page itself revalidated; a strict Content-Security-Policy. Without a build, `/` says how
 * to make one.
 */
export function dashboardPages(webRoot: string, publicRpcUrl: string): express.Router {
  const router = express.Router();
  // The page may reach the public RPC (wallet payments) besides its own origin.
  const connect = ["'self'", ...(publicRpcUrl === '' ? [] : [new URL(publicRpcUrl).origin])].join(' ');
  router.use((_req, res, next) => {
    res.set({
      'Content-Security-Policy': `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src ${connect}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
    next();
  });
  if (!existsSync(webRoot)) {
    router.get('/', () => {
      throw new NotFoundError('dashboard_not_built', 'the dashboard is not built: run `make start` (or `pnpm --filter @gridlab/web build`)');
    });
    return router;
  }
  router.use('/assets', express.static(`${webRoot}/assets`, { immutable: true, maxAge: '365d', index: false, fallthrough: false }));
  router.use(express.static(webRoot, { index: 'index.html', maxAge: 0, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  return router;
}
