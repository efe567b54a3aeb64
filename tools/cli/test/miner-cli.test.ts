/**
 * `gridlab miner` and `gridlab miners --top` against a local HTTP server that answers as
 * the gateway's miner operations do (the gateway's own tests cover those): the tables,
 * --json, and an export streamed to a file.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MinerRound, MinerSummary, MinerWindow, TopMiners } from '@gridlab/contracts';
import { runCli } from '@gridlab/testing';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const ROWS = 1500;

function window(rounds: number, net: number): MinerWindow {
  return {
    rounds, deploys: rounds, deployed: 2_000_000_000 * rounds, solBack: 1_900_000_000 * rounds, adminFee: 0, protocolFee: 0, networkFee: 5_000 * rounds, priorityFee: 0, executorFee: 0,
    checkpointDeposits: 0, net, oreTopMiner: 0, oreSplit: 0, oreMotherlode: 0, ore: 150_000_000_000, oreRefiningFee: 15_000_000_000, oreValue: 0, netWithOre: net, wins: 1, winRate: 0.25,
    topMinerWins: 0, motherlodeHits: 0, medianSlotsLeft: null, firstRound: 1, lastRound: rounds, unknownRounds: 0,
  };
}

const SUMMARY: MinerSummary = {
  address: WALLET,
  all: window(ROWS, -7_500_000_000),
  '24h': window(4, -250_000_000),
  '7d': window(40, -1_000_000_000),
  '30d': window(400, -3_000_000_000),
  claimable: { sol: 1_230_000_000, ore: 50_000_000_000, refinedOre: 1_000_000_000, checkpointedRound: 1499 },
};

const row = (roundId: number): Partial<MinerRound> => ({ roundId, address: WALLET, settledAt: '2026-11-01T00:00:00.000Z', squares: [1, 2], deployed: 2_000_000_000, solBack: 1_900_000_000, net: -100_005_000, oreTopMiner: 0, oreSplit: null, oreMotherlode: 0, heldWinningSquare: false, automated: false });

let server: Server;
let api: string;
let dir: string;
const seen: { url: string; accept: string | undefined; auth: string | undefined }[] = [];

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const json = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (url.pathname === `/api/v1/miners/${WALLET}`) return json(200, SUMMARY);
  if (url.pathname === '/api/v1/miners/4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T') {
    return json(404, { type: 'about:blank', title: 'Not Found', status: 404, code: 'miner_not_found', detail: 'no settled round of this wallet is indexed' });
  }
  if (url.pathname === '/api/v1/miners') {
    return json(200, { sort: url.searchParams.get('sort'), window: url.searchParams.get('window'), miners: [{ rank: 1, address: WALLET, rounds: 40, deployed: 80_000_000_000, net: 2_500_000_000, ore: 300_000_000_000 }] satisfies TopMiners['miners'] });
  }
  if (url.pathname === `/api/v1/miners/${WALLET}/rounds`) {
    const accept = req.headers.accept ?? '';
    if (accept.includes('application/json')) return json(200, { count: 2, rounds: [row(1500), row(1499)], nextBefore: 1499 });
    // The whole ledger, a few rows a chunk.
    const csv = accept.includes('text/csv');
    res.writeHead(200, { 'content-type': csv ? 'text/csv' : 'application/x-ndjson' });
    if (csv) res.write('roundId,address\r\n');
    for (let id = ROWS; id >= 1; id -= 100) {
      let text = '';
      for (let k = id; k > id - 100 && k >= 1; k--) text += csv ? `${k},${WALLET}\r\n` : `${JSON.stringify(row(k))}\n`;
      res.write(text);
    }
    res.end();
    return;
  }
  json(404, { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found', detail: 'no such endpoint' });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gridlab-cli-miner-'));
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', accept: req.headers.accept, auth: req.headers.authorization });
    answer(req, res);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  seen.length = 0;
});

const gridlab = (...args: string[]) => runCli([...args, '--api', api, '--key', 'grid_k'], { GRIDLAB_API_KEY: '' });

describe('gridlab miner', () => {
  it('prints the four windows and what the wallet can claim, or the summary as --json', async () => {
    const table = await gridlab('miner', WALLET);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    // One line per window, in the order 24h, 7d, 30d, all, with its rounds and net SOL.
    const windows = lines.filter((l) => /^\W*(24h|7d|30d|all)\b/.test(l.replace(/^[│|\s]+/, '')));
    expect(windows.map((l) => l.replace(/^[│|\s]+/, '').split(/\s*[│|]\s*/).slice(0, 2))).toEqual([['24h', '4'], ['7d', '40'], ['30d', '400'], ['all', '1500']]);
    expect(table.stdout).toContain('-7.5000');
    expect(table.stdout).toContain('claimable: 1.2300 SOL, 0.5000 ORE unrefined');
    expect(seen[0]).toMatchObject({ url: `/api/v1/miners/${WALLET}`, auth: 'Bearer grid_k' });
    const json = await gridlab('miner', WALLET, '--json');
    expect(JSON.parse(json.stdout)).toEqual(SUMMARY);
  });

  it('says why, and exits 1, for a wallet with no indexed round', async () => {
    const r = await gridlab('miner', '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no settled round/);
  });

  it('--rounds prints a page of the ledger with --limit and --before, and where the next page starts', async () => {
    const r = await gridlab('miner', WALLET, '--rounds', '--limit', '2', '--before', '1501');
    expect(r.code).toBe(0);
    expect(seen[0]!.url).toBe(`/api/v1/miners/${WALLET}/rounds?limit=2&before=1501`);
    expect(r.stdout).toMatch(/1500[^\n]+1 2[^\n]+2\.0000[^\n]+-0\.1000/);
    expect(r.stdout).toContain('more: --before 1499');
    expect((await gridlab('miner', WALLET, '--limit', '2')).code).toBe(2);
  });

  it('--export csv --out streams the whole ledger into the file, with progress on stderr', async () => {
    const file = join(dir, 'ledger.csv');
    const r = await gridlab('miner', WALLET, '--export', 'csv', '--out', file);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const lines = (await readFile(file, 'utf8')).split('\r\n');
    expect(lines[0]).toBe('roundId,address');
    expect(lines).toHaveLength(ROWS + 2);
    expect(lines[ROWS]).toBe(`1,${WALLET}`);
    expect(seen.map((s) => s.accept)).toEqual(['application/json', 'text/csv']);
    expect(r.stderr).toContain(`export: ${ROWS}/${ROWS} rounds`);
  });

  it('--export ndjson streams it to stdout, one row a line', async () => {
    const r = await gridlab('miner', WALLET, '--export', 'ndjson');
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as MinerRound);
    expect(rows).toHaveLength(ROWS);
    expect(rows[0]!.roundId).toBe(ROWS);
    expect((await gridlab('miner', WALLET, '--export', 'xml')).code).toBe(2);
  });
});

describe('gridlab miners --top', () => {
  it('asks for the sort, window and limit given, and prints the ranking or --json', async () => {
    const r = await gridlab('miners', '--top', '--sort', 'ore', '--window', '7d', '--limit', '5');
    expect(r.code).toBe(0);
    expect(seen[0]!.url).toBe('/api/v1/miners?sort=ore&window=7d&limit=5');
    expect(r.stdout).toMatch(new RegExp(`1[^\\n]+${WALLET}[^\\n]+40[^\\n]+80\\.0000[^\\n]+2\\.5000[^\\n]+3\\.0000`));
    const json = await gridlab('miners', '--top', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ sort: 'net', window: '24h' });
    expect((await gridlab('miners', '--top', '--window', '1y')).code).toBe(2);
  });
});
