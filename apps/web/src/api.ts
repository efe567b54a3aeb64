/**
 * The page's access to the API: the typed client in browser-session mode (paid calls go
 * to the `/api/live` mirror with the HttpOnly session cookie; the key never reaches page
 * scripts), and the session endpoints themselves, called by operationId.
 */
import { GridlabClient, isGridlabApiError, type CallOptions, type DashboardConfig, type SessionInfo } from '@gridlab/client';

export const api = new GridlabClient({ baseUrl: location.origin, browserSession: true, retry: { retries: 2, maxDelayMs: 10_000 } });

// The session endpoints' shapes are the OpenAPI document's (declared in libs/contracts/src/api/session.ts).
export type { DashboardConfig, SessionInfo };

/**
 * Session calls are not retried: a sign-in message signs in once, and a failed sign-out
 * must be reported as it came.
 */
const ONCE: CallOptions = { retry: false };

export const session = {
  /** The current session, or null when signed out (or the session ended). */
  async current(): Promise<SessionInfo | null> {
    try {
      return await api.request('getSession', {}, ONCE);
    } catch (error) {
      if (isGridlabApiError(error) && (error.status === 401 || error.status === 402)) return null;
      throw error;
    }
  },
  signInWithKey: (apiKey: string) => api.request('startSession', { body: { apiKey } }, ONCE),
  challenge: (wallet: string) => api.request('startSessionChallenge', { body: { wallet } }, ONCE),
  signInWithWallet: (wallet: string, message: string, signatureBase64: string) => api.request('startSession', { body: { wallet, message, signatureBase64 } }, ONCE),
  signOut: () => api.request('endSession', {}, ONCE),
};

/** The page's settings from the gateway (an older gateway names no public origin: the page's own). */
export async function dashboardConfig(signal?: AbortSignal): Promise<DashboardConfig> {
  const body: Omit<DashboardConfig, 'publicOrigin'> & { publicOrigin?: string } = await api.request('getDashboardConfig', {}, { ...ONCE, ...(signal === undefined ? {} : { signal }) });
  return { rpcUrl: body.rpcUrl, publicOrigin: body.publicOrigin ?? location.origin };
}

/** A short human sentence for any failure. */
export function describe(error: unknown): string {
  if (isGridlabApiError(error)) return `${error.detail} (${error.status} ${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
