/**
 * The page's access to the API: the typed client in browser-session mode (paid calls go
 * to the `/api/live` mirror with the HttpOnly session cookie; the key never reaches page
 * scripts), and the session endpoints themselves.
 */
import {
  GridlabApiError,
  GridlabClient,
  isGridlabApiError,
  type DashboardConfig,
  type SessionChallenge,
  type SessionChallengeRequest,
  type SessionInfo,
  type SessionStartRequest,
} from '@gridlab/client';

export const api = new GridlabClient({ baseUrl: location.origin, browserSession: true, retry: { retries: 2, maxDelayMs: 10_000 } });

// The session endpoints' shapes are the OpenAPI document's (declared in libs/contracts/src/api/session.ts).
export type { DashboardConfig, SessionInfo };

async function sessionCall<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: SessionStartRequest | SessionChallengeRequest): Promise<T> {
  const res = await fetch(`/api/live/session${path}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  if (!res.ok) {
    throw new GridlabApiError({
      status: res.status,
      code: textOr(json['code'], 'error'),
      title: textOr(json['title'], res.statusText),
      detail: textOr(json['detail'], res.statusText),
      errors: (json['errors'] as { path: string; message: string }[] | undefined) ?? [],
      retryAfterMs: null,
      requestId: res.headers.get('x-request-id'),
    });
  }
  return json as T;
}

export const session = {
  /** The current session, or null when signed out (or the session ended). */
  async current(): Promise<SessionInfo | null> {
    try {
      return await sessionCall<SessionInfo>('GET', '');
    } catch (error) {
      if (isGridlabApiError(error) && (error.status === 401 || error.status === 402)) return null;
      throw error;
    }
  },
  signInWithKey: (apiKey: string) => sessionCall<SessionInfo>('POST', '', { apiKey }),
  challenge: (wallet: string) => sessionCall<SessionChallenge>('POST', '/challenge', { wallet }),
  signInWithWallet: (wallet: string, message: string, signatureBase64: string) => sessionCall<SessionInfo>('POST', '', { wallet, message, signatureBase64 }),
  signOut: () => sessionCall<void>('DELETE', ''),
};

/** The page's settings from the gateway (an older gateway names no public origin: the page's own). */
export async function dashboardConfig(signal?: AbortSignal): Promise<DashboardConfig> {
  const res = await fetch('/api/live/config', { credentials: 'same-origin', ...(signal === undefined ? {} : { signal }) });
  if (!res.ok) throw new Error(`the dashboard settings could not be read (${res.status})`);
  const body = (await res.json()) as Omit<DashboardConfig, 'publicOrigin'> & { publicOrigin?: string };
  return { rpcUrl: body.rpcUrl, publicOrigin: body.publicOrigin ?? location.origin };
}

/** A short human sentence for any failure. */
export function describe(error: unknown): string {
  if (isGridlabApiError(error)) return `${error.detail} (${error.status} ${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A problem's text field, or `fallback` when the server sent none. */
function textOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
