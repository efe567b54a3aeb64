import { GridlabClient } from './client.ts';

function recording(): { urls: string[]; inits: RequestInit[]; fetch: typeof fetch } {
  const urls: string[] = [];
  const inits: RequestInit[] = [];
  return {
    urls,
    inits,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      urls.push(input instanceof Request ? input.url : String(input));
      inits.push(init ?? {});
      return new Response('{"entries":[],"count":0,"roundsIndexed":0}', { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  };
}

describe('browserSession', () => {
  it('sends paid calls to the /api/live mirror with the session cookie and no key, public calls to /api/v1', async () => {
    const r = recording();
    const client = new GridlabClient({ baseUrl: 'http://127.0.0.1:8080', browserSession: true, fetch: r.fetch });
    await client.stats();
    await client.rounds({ limit: 5 });
    await client.leaderboard();
    expect(r.urls).toEqual(['http://127.0.0.1:8080/api/live/stats', 'http://127.0.0.1:8080/api/live/rounds?limit=5', 'http://127.0.0.1:8080/api/v1/lab/leaderboard']);
    expect(r.inits[0]?.credentials).toBe('same-origin');
    expect((r.inits[0]?.headers as Record<string, string>)['Authorization']).toBeUndefined();
  });

  it('leaves a keyed client on /api/v1', async () => {
    const r = recording();
    await new GridlabClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'k', fetch: r.fetch }).stats();
    expect(r.urls).toEqual(['http://127.0.0.1:8080/api/v1/stats']);
  });
});
