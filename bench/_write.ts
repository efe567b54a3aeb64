import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { createPool, runMigrations } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { MinerLedgerWriter } from '@gridlab/miners-store';
import { createTestDatabase } from '@gridlab/testing';
import type { MinerRound } from '@gridlab/contracts';

async function main(): Promise<void> {
  const db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  const pool = createPool(db.url, { max: 4 });
  const dbName = new URL(db.url).pathname.slice(1);
  for (const q of [`ALTER DATABASE "${dbName}" SET session_preload_libraries = 'auto_explain'`, `ALTER DATABASE "${dbName}" SET auto_explain.log_min_duration = '400ms'`, `ALTER DATABASE "${dbName}" SET auto_explain.log_analyze = on`, `ALTER DATABASE "${dbName}" SET auto_explain.log_buffers = on`]) await pool.query(q);
  await pool.end();
  const pool2 = createPool(db.url, { max: 4 });
  const addrs = Array.from({ length: 10000 }, () => bs58.encode(randomBytes(32)));
  const writer = new MinerLedgerWriter(pool2);
  const T0 = Date.now() - 30 * 3600_000;
  let seed = 1;
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const make = (round: number): MinerRound[] => {
    const picked = new Set<string>();
    while (picked.size < 376) picked.add(addrs[Math.floor(10000 * rnd() ** 3)]!);
    return [...picked].map((a, j) => ({ roundId: round, address: a, settledAt: new Date(T0 + round * 60_000).toISOString(), payoutRule: 'parimutuel', squares: [1, 5, 9], amounts: [1000, 2000, 3000], deployed: 6000, deploys: 1 + (j % 3), signer: a, automated: false, automationStrategy: null, slotsLeft: j % 100, slotsLeftLast: j % 50, solBack: j % 5 === 0 ? 12000 : 0, oreTopMiner: 0, oreSplit: j % 5 === 0 ? 100 : 0, oreMotherlode: 0, topMiner: false, heldWinningSquare: j % 5 === 0, adminFee: 60, protocolFee: 30, networkFee: 5000, priorityFee: 100, executorFee: 0, checkpointDeposit: 0, net: -1 }) as MinerRound);
  };
  const ms: number[] = [];
  for (let c = 0; c < 12; c++) {
    const chunk = Array.from({ length: 100 }, (_, k) => { const id = c * 100 + k + 1; return { round: { id, settledAt: new Date(T0 + id * 60_000), productionCost: 1e9 }, miners: make(id) }; });
    const t = performance.now();
    await writer.writeRounds(chunk);
    ms.push(performance.now() - t);
  }
  console.log('chunks ms', ms.map((x) => Math.round(x)).join(' '), 'total', Math.round(ms.reduce((a, b) => a + b)));
  await pool2.end(); await db.drop();
}
void main();
