// Profiling aid (not committed): the history bench's two fills, CPU-profiled in this process.
import { decodeBoard, ORE_PROGRAM_ID, OrePdas, SolanaRpc } from '@gridlab/chain';
import { createPool, runMigrations } from '@gridlab/db';
import { fillHistory, TransactionHistory, type FillStore } from '@gridlab/history';
import { MinerLedgerWriter } from '@gridlab/miners-store';
import { historyFillStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { createTestDatabase, freePort, startService } from '@gridlab/testing';
import { Session } from 'node:inspector/promises';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** CPU seconds (user+sys) of every process whose command line matches. */
function cpuOf(match: RegExp): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!match.test(cmd)) continue;
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  return ticks / 100;
}

const ROUNDS = 1200;
async function main() {
  const [rpcPort, wsPort] = [await freePort(), await freePort()];
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const pdas = new OrePdas(ORE_PROGRAM_ID);
  const probe = new SolanaRpc(rpcUrl);
  const devnet = await startService('tools/devnet/src/main.ts', { ...process.env, DEVNET_RPC_PORT: String(rpcPort), DEVNET_WS_PORT: String(wsPort), DEVNET_SLOT_MS: '400', DEVNET_HISTORY_ROUNDS: String(ROUNDS), DEVNET_ERA: 'returns', DEVNET_ROUND_EXPIRY_SLOTS: '1', DEVNET_SEED: '5', DEVNET_LEDGER_DIR: '', ORE_PROGRAM_ID, LOG_LEVEL: 'warn' },
    async () => { const b = await probe.getAccount(pdas.board.toBase58()); return b !== null && decodeBoard(b.data).roundId > ROUNDS; }, 120_000);
  probe.close();
  const mode = process.argv[2] ?? 'both';
  const rpc = new SolanaRpc(rpcUrl, { batchMax: 100, concurrency: 4 });
  const session = new Session();
  session.connect();
  for (const ledger of mode === 'both' ? [false, true] : [mode !== 'plain']) {
    const db = await createTestDatabase();
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    const pool = createPool(db.url);
    const writer = new MinerLedgerWriter(pool);
    const t = { write: 0, fold: 0, writes: 0 };
    const store: FillStore = ledger ? { ...historyFillStore(pool), insertMiners: async (rounds) => { if (mode === 'nowrite') return; const a = performance.now(); await writer.writeRounds(rounds.map(({ round, miners }) => ({ round: { id: round.id, settledAt: new Date(round.settledAt), productionCost: round.productionCost }, miners })), { deferRollups: true }); t.write += performance.now() - a; t.writes++; }, foldMiners: async () => { if (mode === 'nofold' || mode === 'nowrite') return; const a = performance.now(); await writer.foldRollups(); t.fold += performance.now() - a; } } : historyFillStore(pool);
    const profile = process.env['PROFILE'] === '1';
    if (profile) { await session.post('Profiler.enable'); await session.post('Profiler.start'); }
    const dev0 = cpuOf(/devnet/); const pg0 = cpuOf(/^postgres/);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await fillHistory({ fromId: 1, toId: ROUNDS }, new TransactionHistory(rpc, pdas, { ledger }), store, { concurrency: 4, chunk: Number(process.env.CHUNK ?? 100) });
    const s = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const dev = cpuOf(/devnet/) - dev0; const pg = cpuOf(/^postgres/) - pg0;
    if (profile) writeFileSync(`/tmp/fill-${ledger ? 'ledger' : 'plain'}.cpuprofile`, JSON.stringify((await session.post('Profiler.stop')).profile));
    console.log(`${ledger ? 'ledger' : 'plain'}: ${s.toFixed(1)} s wall, reader ${(cpu.user / 1e6).toFixed(1)} s user ${(cpu.system / 1e6).toFixed(1)} s sys; devnet ${dev.toFixed(1)} s; postgres ${pg.toFixed(1)} s; writes ${t.writes} ${(t.write/1000).toFixed(1)} s, folds ${(t.fold/1000).toFixed(1)} s`);
    await pool.end();
    await db.drop();
  }
  rpc.close();
  await devnet.stop();
}
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
