/**
 * Rounds close as on mainnet (the crank closes a settled round once end_slot + expiry <
 * slot, with a Close transaction), and the chain is a function of its seed: the expiry
 * setting changes which accounts are closed and the Close transactions, nothing else.
 */
import { OrePdas, decodeRound } from '@gridlab/chain';
import bs58 from 'bs58';
import { startDevnet, type Devnet, type DevnetOptions } from '../src';
import { allSignatures, rpc, transactions } from './rpc-client';

const BASE: DevnetOptions = { rpcPort: 0, wsPort: 0, roundSlots: 8, intermissionSlots: 2, historyRounds: 40, seed: 77 };
const EXPIRY = 60;

const running: Devnet[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
});
async function start(options: DevnetOptions): Promise<Devnet> {
  const devnet = await startDevnet({ ...BASE, ...options });
  running.push(devnet);
  return devnet;
}

type Tx = { slot: number; transaction: { message: { accountKeys: string[]; instructions: { programIdIndex: number; accounts: number[]; data: string }[] } } };

async function account(devnet: Devnet, address: string): Promise<string | null> {
  const r = await rpc<{ value: { data: [string, string] } | null }>(devnet.rpcUrl, 'getAccountInfo', [address, { encoding: 'base64' }]);
  return r.value?.data[0] ?? null;
}

async function openRoundIds(devnet: Devnet): Promise<number[]> {
  const accounts = await rpc<{ account: { data: [string, string] } }[]>(devnet.rpcUrl, 'getProgramAccounts', [
    devnet.programId,
    { encoding: 'base64', filters: [{ memcmp: { offset: 0, bytes: bs58.encode([109]) } }] },
  ]);
  return accounts.map((a) => decodeRound(Buffer.from(a.account.data[0], 'base64')).id).sort((a, b) => a - b);
}

describe('round expiry', () => {
  it('closes rounds past their expiry with a Close transaction, at genesis and live, and keeps listing their history', async () => {
    const devnet = await start({ slotMs: 10, roundExpirySlots: EXPIRY });
    const pdas = new OrePdas(devnet.programId);
    const open = await openRoundIds(devnet);
    // Only the last few history rounds (and the live one) are still open; the rest exist as transactions.
    expect(open.length).toBeGreaterThan(2);
    expect(open.length).toBeLessThan(12);
    expect(open.at(-1)).toBeGreaterThanOrEqual(41);
    expect(await account(devnet, pdas.round(1).toBase58())).toBeNull();
    // The account keeps the program's expires_at whatever the setting.
    const last = decodeRound(Buffer.from((await account(devnet, pdas.round(40).toBase58()))!, 'base64'));
    const lastTxs = await allSignatures(devnet.rpcUrl, pdas.round(40).toBase58());
    const lastReset = (await transactions<Tx>(devnet.rpcUrl, [lastTxs[0]!.signature]))[0]!;
    expect(last.expiresAt).toBeGreaterThan(216_000);
    expect(last.expiresAt! - 216_000).toBeLessThan(lastReset.slot);

    const listed = await allSignatures(devnet.rpcUrl, pdas.round(1).toBase58());
    const [close, reset] = await transactions<Tx>(devnet.rpcUrl, [listed[0]!.signature, listed[1]!.signature]);
    const keys = close!.transaction.message.accountKeys;
    const ix = close!.transaction.message.instructions[0]!;
    expect(bs58.decode(ix.data)).toEqual(Uint8Array.of(5));
    expect(ix.accounts.map((i) => keys[i])).toEqual([keys[0], pdas.board.toBase58(), keys[0], pdas.round(1).toBase58(), pdas.treasury.toBase58(), '11111111111111111111111111111111']);
    expect(bs58.decode(reset!.transaction.message.instructions[0]!.data)).toEqual(Uint8Array.of(9));
    // end_slot + expiry < close slot: the reset came intermission slots after the end.
    expect(close!.slot).toBe(reset!.slot - BASE.intermissionSlots! + EXPIRY + 1);
    expect(listed.length).toBeGreaterThan(200);

    // A live round closes as slots pass, and its history stays listed.
    const live = devnet.currentRoundId();
    await devnet.waitForSettled(live, 20_000);
    const deadline = Date.now() + 20_000;
    while ((await account(devnet, pdas.round(live).toBase58())) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await account(devnet, pdas.round(live).toBase58())).toBeNull();
    const liveListed = await allSignatures(devnet.rpcUrl, pdas.round(live).toBase58());
    const [liveClose] = await transactions<Tx>(devnet.rpcUrl, [liveListed[0]!.signature]);
    expect(bs58.decode(liveClose!.transaction.message.instructions[0]!.data)).toEqual(Uint8Array.of(5));
    expect(devnet.settledRounds().some((r) => r.id === live)).toBe(true);
  });

  it('gives the same chain for the same seed whatever the expiry: transactions, signatures, slots and open accounts', async () => {
    // Slots this long do not pass during the test: both chains stay at their genesis slot.
    const keepAll = await start({ slotMs: 60_000 });
    const closing = await start({ slotMs: 60_000, roundExpirySlots: EXPIRY });
    expect(closing.slot()).toBe(keepAll.slot());
    const pdas = new OrePdas(keepAll.programId);
    const board = pdas.board.toBase58();
    const kept = await allSignatures(keepAll.rpcUrl, board);
    const withCloses = await allSignatures(closing.rpcUrl, board);
    const keptSigs = new Set(kept.map((s) => s.signature));
    const closes = withCloses.filter((s) => !keptSigs.has(s.signature));
    expect(withCloses.filter((s) => keptSigs.has(s.signature))).toEqual(kept);
    expect(closes.length).toBeGreaterThan(25);
    for (const tx of await transactions<Tx>(closing.rpcUrl, closes.map((s) => s.signature))) {
      expect(bs58.decode(tx.transaction.message.instructions[0]!.data)).toEqual(Uint8Array.of(5));
    }
    const sample = kept.filter((_, i) => i % 5 === 0).map((s) => s.signature);
    expect(await transactions(closing.rpcUrl, sample)).toEqual(await transactions(keepAll.rpcUrl, sample));
    const open = await openRoundIds(closing);
    for (const address of [board, keepAll.treasury, ...open.map((id) => pdas.round(id).toBase58())]) {
      expect(await account(closing, address)).toBe(await account(keepAll, address));
    }
    expect(closing.settledRounds()).toEqual(keepAll.settledRounds());
  });
});
