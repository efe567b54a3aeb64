import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LEDGER_FILE_NAME,
  LEDGER_FILE_VERSION,
  LedgerFileError,
  decodeLedger,
  encodeLedger,
  readLedgerFile,
  writeLedgerFile,
  type LedgerSnapshot,
} from './ledger-file';

function snapshot(slot: number, accounts = 3): LedgerSnapshot {
  return {
    genesis: { hash: 'GenesisHash1111', salt: 'ab'.repeat(32), createdAt: '2025-01-01T00:00:00.000Z', seed: 7, slot: 250_000_000, programId: 'P', tokenMint: 'M' },
    slot,
    mintSequence: 4,
    game: { version: 1, anything: [1, 2, 3] },
    accounts: Array.from({ length: accounts }, (_, i) => ({
      pubkey: `acct${i}`,
      place: i % 2 === 0 ? ('overlay' as const) : ('svm' as const),
      account: { lamports: 1_000 + i, owner: `owner${i}`, executable: false, data: new Uint8Array([i, 255, 0, 7 + (slot % 200)]) },
    })),
    transactions: [{ signature: 'sig1', slot: 5, blockTime: 9, err: null, accounts: ['acct0'], meta: { err: null, fee: 5000 } }],
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gridlab-ledger-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('ledger file', () => {
  it('round-trips every field, account bytes included', async () => {
    const file = join(dir, 'nested', LEDGER_FILE_NAME);
    const saved = snapshot(250_000_123);
    await writeLedgerFile(file, saved);
    const loaded = await readLedgerFile(file);
    expect(loaded).toEqual(saved);
    expect(loaded!.accounts[1]!.account.data).toBeInstanceOf(Uint8Array);
  });

  it('is absent (null) before the first save: the chain starts from genesis', async () => {
    expect(await readLedgerFile(join(dir, LEDGER_FILE_NAME))).toBeNull();
  });

  it('replaces the file atomically: concurrent readers only ever see a whole document, and no temp file stays', async () => {
    const file = join(dir, LEDGER_FILE_NAME);
    await writeLedgerFile(file, snapshot(1, 10));
    let reading = true;
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        const text = await readFile(file, 'utf8');
        // Throws (failing the test) on a partial document.
        const doc = decodeLedger(text, file);
        expect([10, 2000]).toContain(doc.accounts.length);
        reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 30; i++) await writeLedgerFile(file, snapshot(i, i % 2 === 0 ? 2000 : 10));
    reading = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect((await readLedgerFile(file))!.slot).toBe(29);
    expect(await readdir(dir)).toEqual([LEDGER_FILE_NAME]);
  });

  it('ignores and removes what a crash mid-save leaves (a partial temp file); the previous save stands', async () => {
    const file = join(dir, LEDGER_FILE_NAME);
    await writeLedgerFile(file, snapshot(42));
    const partial = encodeLedger(snapshot(43)).slice(0, 100);
    await writeFile(join(dir, `.${LEDGER_FILE_NAME}.deadbeef.tmp`), partial);
    expect((await readLedgerFile(file))!.slot).toBe(42);
    expect(await readdir(dir)).toEqual([LEDGER_FILE_NAME]);
  });

  it('refuses a file of an unknown version, naming make reset', async () => {
    const file = join(dir, LEDGER_FILE_NAME);
    const doc = JSON.parse(encodeLedger(snapshot(1))) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...doc, version: LEDGER_FILE_VERSION + 1 }));
    const error = await readLedgerFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerFileError);
    expect((error as Error).message).toContain(`version ${LEDGER_FILE_VERSION + 1}`);
    expect((error as Error).message).toContain('make reset');
    expect((error as Error).message).toContain(file);
  });

  it('refuses a truncated file or another document rather than half-reading it', () => {
    const text = encodeLedger(snapshot(1));
    expect(() => decodeLedger(text.slice(0, text.length - 5), 'f')).toThrow(/not valid JSON.*make reset/);
    expect(() => decodeLedger('{"format":"something-else"}', 'f')).toThrow(/not a gridlab-devnet-ledger document/);
  });
});
