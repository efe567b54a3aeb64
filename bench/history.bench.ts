import { decodeBoard, ORE_PROGRAM_ID, OrePdas, readOreTransaction, rebuildRound, SolanaRpc, type RoundLayout, type TransactionJson } from '@gridlab/chain';
import { createPool, runMigrations } from '@gridlab/db';
import { fillHistory, TransactionHistory, type FetchedRound, type FillStore } from '@gridlab/history';
import { MinerLedgerWriter } from '@gridlab/miners-store';
import { historyFillStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { createTestDatabase, freePort, startService } from '@gridlab/testing';
import type { Bench } from './types';

/** A day of mainnet: 1,200 rounds (about 185 slots each), about 400 deploys each. */
const ROUNDS = 1200;
/** Target: the day rebuilt in under a minute with no provider limit. */
const TARGET_SECONDS = 60;
/** Rounds whose transactions are decoded again and again for the baseline. */
const BASELINE_ROUNDS = 60;
const BASELINE_REPEATS = 3;
const BATCH = 100;
/** Fills with the ledger and without it, taken in turn, for the ledger's cost. */
const FILLS_EACH = 3;

/** The devnet's default program (ORE_PROGRAM_ID unset). */
const PROGRAM_ID = ORE_PROGRAM_ID;

/** Counts what each round cost while fetching it. */
class CountingHistory extends TransactionHistory {
  readonly rounds: FetchedRound[] = [];

  override async fetch(id: number, fallback: RoundLayout | null): Promise<FetchedRound> {
    const fetched = await super.fetch(id, fallback);
    this.rounds.push(fetched);
    return fetched;
  }
}

/**
 * History from transactions: a day of mainnet-shaped history, every round closed, rebuilt
 * into a fresh database through the devnet's JSON-RPC (getSignaturesForAddress, batched
 * getTransaction), with no provider limit; beside it, decoding alone (the same rounds'
 * transactions read and rebuilt from memory, no RPC and no database).
 */
const bench: Bench = async () => {
  // The devnet in its own process, as `make start` runs it (the RPC node is never the
  // reader's process). Every history round closed before the fill starts; slow live
  // slots: nothing else moves. No ledger directory: nothing of the user's is touched.
  const [rpcPort, wsPort] = [await freePort(), await freePort()];
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const pdas = new OrePdas(PROGRAM_ID);
  const probe = new SolanaRpc(rpcUrl);
  const devnet = await startService(
    'tools/devnet/src/main.ts',
    {
      ...process.env,
      DEVNET_RPC_PORT: String(rpcPort),
      DEVNET_WS_PORT: String(wsPort),
      DEVNET_SLOT_MS: '400',
      DEVNET_HISTORY_ROUNDS: String(ROUNDS),
      DEVNET_ERA: 'returns',
      DEVNET_ROUND_EXPIRY_SLOTS: '1',
      DEVNET_SEED: '5',
      DEVNET_LEDGER_DIR: '',
      ORE_PROGRAM_ID: PROGRAM_ID,
      LOG_LEVEL: 'warn',
    },
    async () => {
      const board = await probe.getAccount(pdas.board.toBase58());
      return board !== null && decodeBoard(board.data).roundId > ROUNDS;
    },
    120_000,
  );
  probe.close();
  const db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  const pool = createPool(db.url);
  let requests = 0;
  const rpc = new SolanaRpc(rpcUrl, { batchMax: BATCH, concurrency: 4, observe: () => requests++ });

  /** One more fill into a fresh database, with every wallet's side of each round or without: its seconds and miner rows. */
  const fillAgain = async (ledger: boolean): Promise<{ seconds: number; minerRows: number; stored: number }> => {
    const again = await createTestDatabase();
    await runMigrations({ databaseUrl: again.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    const againPool = createPool(again.url);
    // Every fill starts with PostgreSQL's dirty buffers written: none inherits the one before's checkpoint.
    await againPool.query('CHECKPOINT');
    try {
      // As the indexer writes the ledger: the rollups folded every thousand rounds and at the
      // end, inside the fill (so inside the time).
      const writer = new MinerLedgerWriter(againPool);
      let minerRows = 0;
      const store: FillStore = ledger
        ? {
            ...historyFillStore(againPool),
            insertMiners: async (rounds) => {
              const entries = rounds.map(({ round, miners }) => ({ round: { id: round.id, settledAt: new Date(round.settledAt), productionCost: round.productionCost }, miners }));
              const written = await writer.writeRounds(entries, { deferRollups: true });
              for (const { round, miners } of rounds) if (written.has(round.id)) minerRows += miners.length;
            },
            foldMiners: async () => void (await writer.foldRollups()),
          }
        : historyFillStore(againPool);
      const started = performance.now();
      const filled = await fillHistory({ fromId: 1, toId: ROUNDS }, new TransactionHistory(rpc, pdas, { ledger }), store, { concurrency: 4 });
      return { seconds: (performance.now() - started) / 1000, minerRows, stored: filled.stored };
    } finally {
      await againPool.end();
      await again.drop();
    }
  };

  try {
    const store: FillStore = historyFillStore(pool);
    const fetcher = new CountingHistory(rpc, pdas);
    await pool.query('CHECKPOINT');
    const started = performance.now();
    const result = await fillHistory({ fromId: 1, toId: ROUNDS }, fetcher, store, { concurrency: 4 });
    const seconds = (performance.now() - started) / 1000;
    const fillRequests = requests;

    // The ledger's cost: fills with it and without, taken in turn (neither gains from going
    // second), each the quicker of three (the VM's stalls and PostgreSQL's checkpoints land on
    // one fill or another by chance).
    const plainRuns = [seconds];
    const withLedgerRuns = [await fillAgain(true)];
    for (let k = 1; k < FILLS_EACH; k++) {
      plainRuns.push((await fillAgain(false)).seconds);
      withLedgerRuns.push(await fillAgain(true));
    }
    const ledgerSeconds = Math.min(...withLedgerRuns.map((r) => r.seconds));
    const plainSeconds = Math.min(...plainRuns);
    const minerRows = withLedgerRuns[0]!.minerRows;
    const over = fetcher.rounds.filter((r) => r.calls > 2 + Math.ceil(r.transactions / BATCH)).length;
    const perRound = Math.max(...fetcher.rounds.map((r) => r.calls - Math.ceil(r.transactions / BATCH)));

    // Decoding alone: the same transactions, held in memory, read and rebuilt.
    const ids = { programId: pdas.programId.toBase58(), board: pdas.board.toBase58() };
    const sample: { id: number; txs: TransactionJson[] }[] = [];
    for (let id = 1; id <= BASELINE_ROUNDS; id++) {
      const signatures = (await rpc.getSignaturesForAddress(pdas.round(id).toBase58())).filter((s) => s.err === null).map((s) => s.signature).reverse();
      sample.push({ id, txs: (await rpc.getTransactions(signatures)) as TransactionJson[] });
    }
    // As they arrive: JSON text, parsed and decoded.
    const texts = sample.map((s) => ({ id: s.id, text: JSON.stringify(s.txs) }));
    let decoded = 0;
    const decodeStarted = performance.now();
    for (let k = 0; k < BASELINE_REPEATS; k++) {
      for (const { id, text } of texts) {
        const txs = (JSON.parse(text) as TransactionJson[]).map((t) => readOreTransaction(t, ids));
        const rebuilt = rebuildRound({ roundId: id, roundAddress: pdas.round(id).toBase58(), transactions: txs, fallbackLayout: 952 });
        if (!rebuilt.ok) throw new Error(`baseline round ${id} did not rebuild: ${rebuilt.detail}`);
        decoded += txs.length;
      }
    }
    const decodeRate = decoded / ((performance.now() - decodeStarted) / 1000);
    const txRate = result.transactions / seconds;
    return [
      { key: 'history.seconds', label: `history from transactions: ${ROUNDS.toLocaleString('en')} closed rounds rebuilt (devnet, no provider limit)`, value: Math.round(seconds * 10) / 10, unit: 's', target: `< ${TARGET_SECONDS}`, met: seconds < TARGET_SECONDS && result.stored === ROUNDS },
      {
        key: 'history.withLedgerSeconds',
        label: `the same fill with every wallet's side of each round stored (${minerRows.toLocaleString('en')} miner rows; the quicker of ${FILLS_EACH})`,
        value: Math.round(ledgerSeconds * 10) / 10,
        unit: 's',
        met: withLedgerRuns.every((r) => r.stored === ROUNDS),
      },
      {
        key: 'history.ledgerSlowdown',
        label: `history fill with the miner ledger ÷ without (same run; the quicker of ${FILLS_EACH} fills each, taken in turn)`,
        value: Math.round((ledgerSeconds / plainSeconds) * 100) / 100,
        unit: 'ratio',
        target: '<= 1.2',
        met: ledgerSeconds <= 1.2 * plainSeconds,
      },
      { key: 'history.roundsPerSecond', label: 'history from transactions: rounds rebuilt and stored', value: Math.round(result.roundsPerSecond * 10) / 10, unit: 'rounds/s' },
      { key: 'history.transactionsPerSecond', label: `history from transactions: transactions fetched and decoded (${Math.round(result.transactions / ROUNDS)} a round)`, value: Math.round(txRate), unit: 'tx/s' },
      { key: 'history.decodeOnlyPerSecond', label: 'baseline, same run: the same transactions decoded and rebuilt from memory (JSON.parse included)', value: Math.round(decodeRate), unit: 'tx/s' },
      { key: 'history.decodeShare', label: 'history fill ÷ decoding alone', value: Math.round((txRate / decodeRate) * 1000) / 1000, unit: 'ratio' },
      { key: 'history.callsPerRound', label: 'RPC requests a round beyond its transaction batches (most of any round)', value: perRound, unit: 'requests', target: '<= 2', met: over === 0 },
      { key: 'history.requests', label: `RPC requests in all (${ROUNDS.toLocaleString('en')} rounds, batches of ${BATCH})`, value: fillRequests, unit: 'requests' },
    ];
  } finally {
    rpc.close();
    await pool.end();
    await db.drop();
    await devnet.stop();
  }
};

export default bench;
