/**
 * The devnet's ledger file: everything a restarted devnet needs to continue the same
 * chain (genesis identity, slot, every account, the game's settings, the transactions
 * the ledger ran — never the game's, which are derived from the seed)
 * in one JSON document, written atomically (a temp file in the same directory, fsync,
 * rename, fsync of the directory), so a crash mid-save leaves the previous file intact.
 *
 * Bump LEDGER_FILE_VERSION whenever the document's shape changes; the game's own state
 * carries its own version (game/game-state.ts). A file of another version is refused with
 * a message naming `make reset`, never half-read.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { StoredAccount } from './account-store';
import type { TxRecord } from './ledger';

const LEDGER_FILE_FORMAT = 'gridlab-devnet-ledger';
export const LEDGER_FILE_VERSION = 3;
/** The file's name inside the ledger directory. */
export const LEDGER_FILE_NAME = 'ledger.json';

/** What makes a chain this chain: fixed at genesis, never changed by a restart. */
export interface Genesis {
  /** base58 of sha256 over the seed and the salt: what getGenesisHash answers. */
  readonly hash: string;
  /** 32 random bytes (hex) drawn at genesis: a chain started again from genesis is another chain. */
  readonly salt: string;
  readonly createdAt: string;
  readonly seed: number;
  readonly slot: number;
  readonly programId: string;
  readonly tokenMint: string;
}

export interface LedgerSnapshot {
  readonly genesis: Genesis;
  /** The slot the chain had reached. */
  readonly slot: number;
  /** Sequence number of the next dev mint (memos keep mints distinct). */
  readonly mintSequence: number;
  /** The game's versioned state (see game/game-state.ts); checked by the game when restored. */
  readonly game: unknown;
  readonly accounts: readonly StoredAccount[];
  readonly transactions: readonly TxRecord[];
}

/** A ledger file that cannot be continued from; the message says what to do. */
export class LedgerFileError extends Error {
  constructor(file: string, problem: string) {
    super(
      `devnet ledger ${file}: ${problem}. Run \`make reset\` to start a new chain from genesis ` +
        '(it also clears the local database, JetStream streams and Redis keys that refer to the old chain).',
    );
    this.name = 'LedgerFileError';
  }
}

type AccountRow = [pubkey: string, place: 'overlay' | 'svm', owner: string, lamports: number, executable: boolean, dataBase64: string];

interface LedgerDocument {
  format: typeof LEDGER_FILE_FORMAT;
  version: number;
  savedAt: string;
  genesis: Genesis;
  slot: number;
  mintSequence: number;
  game: unknown;
  accounts: AccountRow[];
  transactions: TxRecord[];
}

/** The JSON text of a snapshot (synchronous: the snapshot is one consistent moment). */
export function encodeLedger(snapshot: LedgerSnapshot, savedAt = new Date()): string {
  const doc: LedgerDocument = {
    format: LEDGER_FILE_FORMAT,
    version: LEDGER_FILE_VERSION,
    savedAt: savedAt.toISOString(),
    genesis: snapshot.genesis,
    slot: snapshot.slot,
    mintSequence: snapshot.mintSequence,
    game: snapshot.game,
    accounts: snapshot.accounts.map(({ pubkey, place, account }) => [
      pubkey,
      place,
      account.owner,
      account.lamports,
      account.executable,
      Buffer.from(account.data.buffer, account.data.byteOffset, account.data.byteLength).toString('base64'),
    ]),
    transactions: [...snapshot.transactions],
  };
  return JSON.stringify(doc);
}

/** Parses the JSON text of a ledger file; `file` names it in errors. */
export function decodeLedger(text: string, file: string): LedgerSnapshot {
  let doc: Partial<LedgerDocument>;
  try {
    doc = JSON.parse(text) as Partial<LedgerDocument>;
  } catch {
    throw new LedgerFileError(file, 'the file is not valid JSON (truncated or not a ledger file)');
  }
  if (doc === null || typeof doc !== 'object' || doc.format !== LEDGER_FILE_FORMAT) {
    throw new LedgerFileError(file, `the file is not a ${LEDGER_FILE_FORMAT} document`);
  }
  if (doc.version !== LEDGER_FILE_VERSION) {
    throw new LedgerFileError(file, `the file has version ${JSON.stringify(doc.version)}; this devnet reads version ${LEDGER_FILE_VERSION} only`);
  }
  const genesis = doc.genesis;
  if (
    genesis === undefined ||
    typeof genesis.hash !== 'string' ||
    typeof doc.slot !== 'number' ||
    !Array.isArray(doc.accounts) ||
    !Array.isArray(doc.transactions)
  ) {
    throw new LedgerFileError(file, 'the file lacks genesis, slot, accounts or transactions');
  }
  return {
    genesis,
    slot: doc.slot,
    mintSequence: doc.mintSequence ?? 0,
    game: doc.game,
    accounts: doc.accounts.map(([pubkey, place, owner, lamports, executable, data]) => ({
      pubkey,
      place,
      account: { owner, lamports, executable, data: new Uint8Array(Buffer.from(data, 'base64')) },
    })),
    transactions: doc.transactions,
  };
}

/** Reads the ledger file, or null when there is none (a new chain starts from genesis). */
export async function readLedgerFile(file: string): Promise<LedgerSnapshot | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  await removeTempFiles(file);
  return decodeLedger(text, file);
}

/**
 * Writes the snapshot atomically: readers (and a crash at any point) see the previous
 * file or the new one, never a partial one.
 */
export async function writeLedgerFile(file: string, snapshot: LedgerSnapshot): Promise<void> {
  const text = encodeLedger(snapshot);
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw error;
  }
  // The rename is durable once the directory entry is.
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Temp files a crash left beside the ledger file. */
async function removeTempFiles(file: string): Promise<void> {
  const dir = dirname(file);
  const prefix = `.${basename(file)}.`;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name.startsWith(prefix) && name.endsWith('.tmp')) await unlink(join(dir, name)).catch(() => undefined);
  }
}
