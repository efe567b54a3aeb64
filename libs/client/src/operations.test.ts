/**
 * The client's table of operations (src/generated/operations.ts, from the contracts'
 * table: the package is published without @gridlab/contracts, its tests are not) and what
 * reaches each operation: a method of the client, or request() alone for the operations
 * listed with the reason.
 */
import { API, API_OPERATIONS, type OperationSpec } from '@gridlab/contracts';
import { GridlabClient } from './client.ts';
import { OPERATIONS } from './generated/operations.ts';
import type {
  AlertCreateRequest,
  AnalyticsRequest,
  BacktestRequest,
  OperationId,
  ReissueCompleteRequest,
  ReissueStartRequest,
  StrategyCreateRequest,
  SubscribeCompleteRequest,
  SubscribeStartRequest,
} from './types.ts';

/** The operations no method calls, and why: request() reaches them. */
const REQUEST_ONLY: Partial<Record<OperationId, string>> = Object.fromEntries(
  (['getDashboardConfig', 'startSessionChallenge', 'startSession', 'getSession', 'endSession'] as const).map((id) => [
    id,
    "the dashboard's session endpoints: only its page may call them (their cookie and the page's Origin), and it does with request() (apps/web/src/api.ts)",
  ]),
);

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

async function drain(items: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of items) continue;
}

/** Each method of the client that calls the API, called once. */
const METHODS: Readonly<Record<string, (client: GridlabClient) => Promise<unknown>>> = {
  live: (c) => c.live(),
  liveEv: (c) => c.liveEv(),
  stats: (c) => c.stats(),
  rounds: (c) => c.rounds(),
  round: (c) => c.round(1),
  grid: (c) => c.grid(0),
  dumpPage: (c) => c.dumpPage(),
  dump: (c) => drain(c.dump()),
  openapi: (c) => c.openapi(),
  pricing: (c) => c.pricing(),
  startSubscription: (c) => c.startSubscription({} as SubscribeStartRequest),
  completeSubscription: (c) => c.completeSubscription({} as SubscribeCompleteRequest),
  startReissue: (c) => c.startReissue({} as ReissueStartRequest),
  completeReissue: (c) => c.completeReissue({} as ReissueCompleteRequest),
  events: (c) => c.events(),
  eventStream: (c) => drain(c.eventStream({ reconnect: false })),
  stream: (c) => drain(c.stream({ reconnect: false })),
  watchRounds: (c) => drain(c.watchRounds({ reconnect: false })),
  listStrategies: (c) => c.listStrategies(),
  createStrategy: (c) => c.createStrategy({} as StrategyCreateRequest),
  strategy: (c) => c.strategy('stg_1'),
  updateStrategy: (c) => c.updateStrategy('stg_1', {}),
  deleteStrategy: (c) => c.deleteStrategy('stg_1'),
  restoreStrategy: (c) => c.restoreStrategy('stg_1'),
  forward: (c) => c.forward('stg_1'),
  backtest: (c) => c.backtest({} as BacktestRequest),
  analytics: (c) => c.analytics({} as AnalyticsRequest),
  leaderboard: (c) => c.leaderboard(),
  leaderboardEntry: (c) => c.leaderboardEntry('stg_1'),
  miner: (c) => c.miner(WALLET),
  minerRounds: (c) => c.minerRounds(WALLET),
  exportMinerRounds: (c) => drain(c.exportMinerRounds(WALLET)),
  exportMinerRoundsText: (c) => drain(c.exportMinerRoundsText(WALLET, 'csv')),
  minerPerformance: (c) => c.minerPerformance(WALLET),
  topMiners: (c) => c.topMiners(),
  roundMiners: (c) => c.roundMiners(1),
  minerStream: (c) => drain(c.minerStream(WALLET, { reconnect: false })),
  alerts: (c) => c.alerts(),
  alertStream: (c) => drain(c.alertStream({ reconnect: false })),
  createAlert: (c) => c.createAlert({} as AlertCreateRequest),
  alert: (c) => c.alert('alr_1'),
  updateAlert: (c) => c.updateAlert('alr_1', {}),
  deleteAlert: (c) => c.deleteAlert('alr_1'),
  rotateAlertSecret: (c) => c.rotateAlertSecret('alr_1'),
  testAlert: (c) => c.testAlert('alr_1'),
  alertDeliveries: (c) => c.alertDeliveries('alr_1'),
  redeliverAlert: (c) => c.redeliverAlert('alr_1', 7),
};

/** A client whose requests are recorded as the operations they reach, each answered with an empty body of the type asked for. */
function recordingClient(): { client: GridlabClient; reached: string[] } {
  const reached: string[] = [];
  const routes = Object.entries(OPERATIONS).map(([id, route]) => ({
    id,
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`),
  }));
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const path = new URL(input instanceof Request ? input.url : input).pathname;
    reached.push(routes.find((r) => r.method === init?.method && r.pattern.test(path))?.id ?? `${init?.method} ${path}: no operation`);
    const accept = (init?.headers as Record<string, string>)['Accept']!;
    return new Response(accept === 'application/json' ? '{}' : '', { status: 200, headers: { 'Content-Type': accept } });
  }) as typeof globalThis.fetch;
  return { client: new GridlabClient({ baseUrl: 'http://gridlab.test', apiKey: 'grid_k', retry: false, fetch }), reached };
}

/** The media type of an operation's success answer: its lowest 2xx status's first; null when it has no body. */
function successMediaType(op: OperationSpec): string | null {
  const [, ok] = Object.entries(op.responses).find(([status]) => status.startsWith('2'))!;
  return Object.keys(ok.content ?? {})[0] ?? null;
}

describe("the client's operations", () => {
  it("are the contracts' operations: the same operationIds, each with its method, path, access and success media type", () => {
    const generated = Object.fromEntries(Object.entries(OPERATIONS).map(([id, r]) => [id, { method: r.method, path: r.path, access: r.access, answers: r.answers }]));
    const declared = Object.fromEntries(API_OPERATIONS.map((op) => [op.operationId, { method: op.method, path: op.path, access: op.access, answers: successMediaType(op) }]));
    expect(generated).toEqual(declared);
  });

  it('are each reached by a method of the client, or listed with the reason request() alone reaches them', async () => {
    const { client, reached } = recordingClient();
    for (const call of Object.values(METHODS)) await call(client);
    expect(reached.filter((id) => !(id in OPERATIONS))).toEqual([]);
    const byMethod = new Set(reached);
    expect(Object.keys(OPERATIONS).filter((id) => !byMethod.has(id) && REQUEST_ONLY[id as OperationId] === undefined)).toEqual([]);
    // A listed operation that gained a method is listed no more.
    expect(Object.keys(REQUEST_ONLY).filter((id) => byMethod.has(id))).toEqual([]);
  });

  it('reaches each listed operation through request()', async () => {
    const { client, reached } = recordingClient();
    const request = client.request.bind(client) as (id: string, args: unknown) => Promise<unknown>;
    const listed = Object.keys(REQUEST_ONLY) as (keyof typeof API)[];
    for (const id of listed) await request(id, (API[id] as OperationSpec).body === undefined ? {} : { body: {} });
    expect(reached).toEqual(listed);
  });
});
