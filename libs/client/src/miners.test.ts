/**
 * The miner methods against a real HTTP server whose answers the test scripts: the
 * request each sends, the export read row by row, and the stream resumed by round id.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MinerDeployed as ContractMinerDeployed } from '@gridlab/contracts';
import { GridlabClient } from './client.ts';
import { GridlabApiError } from './errors.ts';
import type { MinerDeployed } from './miners.ts';
import type { MinerRound } from './types.ts';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

interface Seen {
  readonly url: string;
  readonly accept: string | undefined;
  readonly auth: string | undefined;
  readonly lastEventId: string | undefined;
}

let server: Server;
let baseUrl: string;
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', accept: req.headers.accept, auth: req.headers.authorization, lastEventId: req.headers['last-event-id'] as string | undefined });
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  answer = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  };
});

const client = (): GridlabClient => new GridlabClient({ baseUrl, apiKey: 'grid_k', retry: false });
const row = (roundId: number): MinerRound => ({ roundId, address: WALLET, net: -1 }) as MinerRound;

/** A compile-time check: the client's MinerDeployed is the contracts' (the OpenAPI document does not carry it). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const DEPLOYED_IS_THE_CONTRACT: Same<MinerDeployed, Readonly<ContractMinerDeployed>> = true;

describe('the miner methods', () => {
  it('send each operation with its path, query and key', async () => {
    const c = client();
    await c.miner(WALLET);
    await c.minerRounds(WALLET, { before: 100, limit: 5 });
    await c.minerPerformance(WALLET, { bucket: 'hour' });
    await c.topMiners({ sort: 'ore', window: '7d', limit: 3 });
    await c.roundMiners(42);
    expect(seen.map((s) => s.url)).toEqual([
      `/api/v1/miners/${WALLET}`,
      `/api/v1/miners/${WALLET}/rounds?before=100&limit=5`,
      `/api/v1/miners/${WALLET}/performance?bucket=hour`,
      '/api/v1/miners?sort=ore&window=7d&limit=3',
      '/api/v1/rounds/42/miners',
    ]);
    expect(seen.every((s) => s.auth === 'Bearer grid_k' && s.accept === 'application/json')).toBe(true);
    expect(DEPLOYED_IS_THE_CONTRACT).toBe(true);
  });

  it('throws the problem of a 404 miner_not_found', async () => {
    answer = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'miner_not_found', detail: 'no settled round' }));
    };
    await expect(client().miner(WALLET)).rejects.toMatchObject({ status: 404, code: 'miner_not_found' });
    await expect(client().miner(WALLET)).rejects.toBeInstanceOf(GridlabApiError);
  });

  it('exports the ledger as NDJSON, yielding each row as its line arrives (lines split across chunks)', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const text = `${JSON.stringify(row(9))}\n${JSON.stringify(row(8))}\n`;
      res.write(text.slice(0, 7));
      res.write(text.slice(7, text.length - 5));
      res.write(text.slice(text.length - 5));
      void held.then(() => res.end(`${JSON.stringify(row(7))}\n`));
    };
    const rows = client().exportMinerRounds(WALLET, { before: 10 });
    // The first rows are yielded while the server still holds the rest of the body.
    expect((await rows.next()).value).toEqual(row(9));
    expect((await rows.next()).value).toEqual(row(8));
    release();
    expect((await rows.next()).value).toEqual(row(7));
    expect((await rows.next()).done).toBe(true);
    expect(seen[0]).toMatchObject({ url: `/api/v1/miners/${WALLET}/rounds?before=10`, accept: 'application/x-ndjson' });
  });

  it('exports the ledger as the CSV text the server writes', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write('roundId,address\r\n');
      res.end(`9,${WALLET}\r\n`);
    };
    let text = '';
    for await (const chunk of client().exportMinerRoundsText(WALLET, 'csv')) text += chunk;
    expect(text).toBe(`roundId,address\r\n9,${WALLET}\r\n`);
    expect(seen[0]!.accept).toBe('text/csv');
  });

  it("streams the wallet's deploys and rounds, and resumes after a drop from the last round with Last-Event-ID, none repeated", async () => {
    const deploy = { roundId: 10, address: WALLET, signer: WALLET, signature: 's', slot: 1, squares: [1], amount: 5, automated: false, automationStrategy: null };
    let connection = 0;
    answer = (_req, res) => {
      connection++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (connection === 1) {
        res.write(`event: deploy\ndata: ${JSON.stringify(deploy)}\n\n`);
        res.write(`event: round\nid: 9\ndata: ${JSON.stringify(row(9))}\n\n`);
        // Dropped mid-stream, once what was written has left.
        setTimeout(() => res.destroy(), 50);
      } else {
        // A server that sends round 9 again must not make the client repeat it.
        res.write(`event: round\nid: 9\ndata: ${JSON.stringify(row(9))}\n\n`);
        res.write(`event: round\nid: 10\ndata: ${JSON.stringify(row(10))}\n\n`);
        res.end();
      }
    };
    const events = [];
    for await (const event of client().minerStream(WALLET, { after: 8, reconnectDelayMs: 1 })) {
      events.push(event);
      if (events.length === 3) break;
    }
    expect(events).toEqual([
      { type: 'deploy', deploy },
      { type: 'round', round: row(9) },
      { type: 'round', round: row(10) },
    ]);
    expect(seen.map((s) => [s.url, s.lastEventId, s.accept])).toEqual([
      [`/api/v1/miners/${WALLET}/stream`, '8', 'text/event-stream'],
      [`/api/v1/miners/${WALLET}/stream`, '9', 'text/event-stream'],
    ]);
  }, 10_000);
});
