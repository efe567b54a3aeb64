import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import autocannon from 'autocannon';
import { freePort, startGatewayUnderTest } from './gateway-harness';
import type { Bench } from './types';

/**
 * Bare and gateway runs alternate in pairs of short runs, and the figures are medians: load
 * on a shared VM drifts over seconds, so the two runs of a pair see much the same machine.
 */
const DURATION_S = 2;
const ROUNDS = 10;
/**
 * Both servers are loaded before measuring: the gateway's first seconds look every key
 * up (5,000 PostgreSQL reads and cache fills) and compile its hot path, which a
 * long-running replica did long ago.
 */
const WARM_UP_S = 4;
const CONNECTIONS = 50;
const FIXED_RATE_CONNECTIONS = 10;
/**
 * Enough keys that no key's bucket (burst 60, 5/s) runs dry during the run: at 40,000
 * req/s a key is asked 8 times a second, 3 more than it refills, so the warm-up takes 12
 * of its 60 tokens and each pair gives back more than it takes (6 in its gateway run, 10
 * refilled during its bare run).
 */
const KEYS = 5000;
/** Fresh keys, each sent BURST requests at once after the throughput runs (issued with the others, never used by them). */
const BURST_KEYS = 5;
const BURST = 70;
/** GET /live/ev load: a steady rate well within the keys' buckets. */
const EV_RATE = 1000;
const EV_SECONDS = 3;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function load(
  url: string,
  headers: (i: number) => Record<string, string>,
  { overallRate, duration = DURATION_S }: { overallRate?: number; duration?: number } = {},
  path?: () => string,
): Promise<autocannon.Result> {
  let i = 0;
  return autocannon({
    url,
    ...(path === undefined ? {} : { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: path() }) }] }),
    // A fixed rate over many connections makes autocannon send in bursts (a bare server
    // shows a 140 ms p99 at 1,000 req/s over 50 connections); 10 spread it evenly.
    connections: overallRate === undefined ? CONNECTIONS : FIXED_RATE_CONNECTIONS,
    duration,
    ...(overallRate === undefined ? {} : { overallRate }),
    setupClient: (client) => {
      client.on('response', () => {
        client.setHeaders(headers(i++));
      });
      client.setHeaders(headers(i++));
    },
  });
}

/** `size` requests of one key at once: how many were answered 200, and the tokens refilled while they ran. */
async function burst(url: string, key: string, size: number): Promise<{ answered: number; refilled: number }> {
  const started = Date.now();
  const statuses = await Promise.all(
    Array.from({ length: size }, async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      return res.status;
    }),
  );
  return { answered: statuses.filter((s) => s === 200).length, refilled: Math.floor(((Date.now() - started) * 5) / 1000) };
}

/** CPU milliseconds (user + system) a process has used, from /proc (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Headers Node's http server writes itself, on the bare server as on the gateway. */
const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive']);

/** One answer of the gateway's GET /live: its headers (but Node's own) and body, to repeat. */
function gatewayAnswer(url: string, key: string): Promise<{ headers: Record<string, string>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`GET /live answered ${res.statusCode}`));
        const headers: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (!WRITTEN_BY_NODE.has(res.rawHeaders[i]!.toLowerCase())) headers[res.rawHeaders[i]!] = res.rawHeaders[i + 1]!;
        }
        resolve({ headers, body: Buffer.concat(chunks) });
      });
    }).on('error', reject);
  });
}

/**
 * GET /live through the whole gateway (request id, Bearer auth, Redis gate, cached
 * bytes) against a bare Node http server answering with the same bytes (the gateway's
 * headers and body, so the client parses the same response from both), both driven by
 * autocannon on this machine; then p99 latency at a fixed 1,000 requests/s.
 */
const bench: Bench = async () => {
  const gateway = await startGatewayUnderTest(KEYS + BURST_KEYS);
  const answer = await gatewayAnswer(`${gateway.url}/api/v1/live`, gateway.keys[0]!);
  const barePort = await freePort();
  const bare = spawn(
    process.execPath,
    [
      '-e',
      `const h=JSON.parse(process.env.HEADERS),b=Buffer.from(process.env.BODY,'base64');require('http').createServer((q,s)=>{s.writeHead(200,h);s.end(b)}).listen(${barePort},'127.0.0.1')`,
    ],
    { env: { ...process.env, HEADERS: JSON.stringify(answer.headers), BODY: answer.body.toString('base64') }, stdio: 'ignore' },
  );
  try {
    await new Promise((r) => setTimeout(r, 500));
    const auth = (i: number) => ({ authorization: `Bearer ${gateway.keys[i % KEYS]}` });
    const bareRps: number[] = [];
    const gatewayRps: number[] = [];
    const ratios: number[] = [];
    let non2xx = 0;
    await load(`http://127.0.0.1:${barePort}/api/v1/live`, () => ({}), { duration: WARM_UP_S });
    await load(`${gateway.url}/api/v1/live`, auth, { duration: WARM_UP_S });
    for (let round = 0; round < ROUNDS; round++) {
      const bareResult = await load(`http://127.0.0.1:${barePort}/api/v1/live`, () => ({}));
      const gatewayResult = await load(`${gateway.url}/api/v1/live`, auth);
      non2xx += gatewayResult.non2xx;
      bareRps.push(bareResult.requests.average);
      gatewayRps.push(gatewayResult.requests.average);
      ratios.push(gatewayResult.requests.average / bareResult.requests.average);
    }
    const fixed = await load(`${gateway.url}/api/v1/live`, auth, { overallRate: 1000, duration: 4 });
    const ratio = median(ratios);
    const bursts: { answered: number; refilled: number }[] = [];
    for (const key of gateway.keys.slice(KEYS)) bursts.push(await burst(`${gateway.url}/api/v1/live`, key, BURST));
    const burstMet = bursts.every(({ answered, refilled }) => answered >= 60 && answered <= 60 + refilled);
    // GET /live/ev: the gateway's CPU per answer (its /proc stat), for stakes of every size.
    const cpuBefore = processCpuMs(gateway.pid);
    let stake = 0;
    const evLoad = await load(`${gateway.url}/api/v1/live/ev`, auth, { overallRate: EV_RATE, duration: EV_SECONDS }, () => `/api/v1/live/ev?stakeLamports=${1 + ((stake = (stake * 7 + 12_345_679) % 999_999_999_937) % 1_000_000_000_000)}`);
    const evCpuMs = (processCpuMs(gateway.pid) - cpuBefore) / Math.max(1, evLoad.requests.total);
    return [
      { key: 'live.gatewayRps', label: `GET /live with auth + rate limit (median of ${ROUNDS})`, value: Math.round(median(gatewayRps)), unit: 'req/s' },
      { key: 'live.bareRps', label: `bare Node http, the same response bytes (median of ${ROUNDS})`, value: Math.round(median(bareRps)), unit: 'req/s' },
      { key: 'live.ratio', label: 'GET /live ÷ bare http (median of alternating pairs)', value: Math.round(ratio * 1000) / 1000, unit: 'ratio', target: '>= 0.75', met: ratio >= 0.75 },
      { key: 'live.non2xx', label: 'GET /live non-2xx responses during the run', value: non2xx, unit: 'responses' },
      { key: 'live.p99At1000', label: 'GET /live p99 at 1,000 req/s', value: fixed.latency.p99, unit: 'ms', target: '< 20', met: fixed.latency.p99 < 20 },
      {
        key: 'live.evCpuMs',
        label: `GET /live/ev: gateway CPU per answer (${EV_RATE.toLocaleString('en')} req/s for ${EV_SECONDS} s, stakes of 1 lamport to 1,000 SOL)`,
        value: Math.round(evCpuMs * 1000) / 1000,
        unit: 'ms',
        target: '< 1',
        met: evCpuMs < 1 && evLoad.non2xx === 0,
      },
      {
        key: 'live.burstAnswered',
        label: `GET /live: fewest 200s of ${BURST} concurrent requests on a fresh key (${BURST_KEYS} keys, after the load)`,
        value: Math.min(...bursts.map((b) => b.answered)),
        unit: 'responses',
        target: '60 (+ refill)',
        met: burstMet,
      },
    ];
  } finally {
    bare.kill();
    await gateway.stop();
  }
};

export default bench;
