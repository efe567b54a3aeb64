import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrePdas } from '@gridlab/chain';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { startDevnet, type Devnet, type DevnetOptions } from '../src';

const OPTIONS: DevnetOptions = { rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: 20, seed: 11, saveIntervalMs: 200 };

async function rpc<T>(devnet: Devnet, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(JSON.stringify(body.error));
  return body.result as T;
}

async function accountBase64(devnet: Devnet, pubkey: string): Promise<string | null> {
  const r = await rpc<{ value: { data: [string, string] } | null }>(devnet, 'getAccountInfo', [pubkey, { encoding: 'base64' }]);
  return r.value?.data[0] ?? null;
}

let dir: string;
const running: Devnet[] = [];
const start = async (options: DevnetOptions): Promise<Devnet> => {
  const devnet = await startDevnet(options);
  running.push(devnet);
  return devnet;
};
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gridlab-devnet-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
  await rm(dir, { recursive: true, force: true });
});

describe('devnet ledger across restarts', () => {
  it('continues the same chain: genesis hash, slot, round ids, accounts, payment mint, treasury and transactions', async () => {
    const first = await start({ ...OPTIONS, ledgerDir: dir });
    expect(first.restored).toBe(false);
    const genesis = await rpc<string>(first, 'getGenesisHash');
    expect(bs58.decode(genesis)).toHaveLength(32);
    expect(genesis).toBe(first.genesisHash);

    // A wallet with SOL (a real transfer) and payment tokens (a dev mint).
    const payer = Keypair.generate();
    const receiver = Keypair.generate();
    await rpc(first, 'requestAirdrop', [payer.publicKey.toBase58(), 2 * LAMPORTS_PER_SOL]);
    const { value: latest } = await rpc<{ value: { blockhash: string } }>(first, 'getLatestBlockhash');
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: latest.blockhash }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver.publicKey, lamports: 5_000_000 }),
    );
    tx.sign(payer);
    const transfer = await rpc<string>(first, 'sendTransaction', [tx.serialize().toString('base64'), { encoding: 'base64' }]);
    const mintSig = await first.mintTokens(receiver.publicKey.toBase58(), 777n);
    await first.waitForSettled(first.settledRounds().length + 3);
    await first.stop();
    running.splice(0);
    const stoppedAt = { slot: first.slot(), roundId: first.currentRoundId(), settled: first.settledRounds().map((r) => r.id) };
    const pdas = new OrePdas(first.programId);

    const second = await start({ ...OPTIONS, ledgerDir: dir, historyRounds: 500 });
    expect(second.restored).toBe(true);
    expect(await rpc<string>(second, 'getGenesisHash')).toBe(genesis);
    expect(second.slot()).toBeGreaterThanOrEqual(stoppedAt.slot);
    expect(second.currentRoundId()).toBe(stoppedAt.roundId);
    // No history regenerated (historyRounds is ignored for a saved chain).
    expect(second.settledRounds().map((r) => r.id)).toEqual(stoppedAt.settled);
    expect(second.tokenMint).toBe(first.tokenMint);
    expect(second.treasuryTokenAccount).toBe(first.treasuryTokenAccount);
    expect(await accountBase64(second, second.treasuryTokenAccount)).not.toBeNull();
    expect(await accountBase64(second, second.tokenMint)).not.toBeNull();
    expect(await rpc<{ value: number }>(second, 'getBalance', [receiver.publicKey.toBase58()])).toMatchObject({ value: 5_000_000 });
    const ata = (await rpc<{ value: { amount: string } }>(second, 'getTokenAccountBalance', [
      getAssociatedTokenAddressSync(new PublicKey(second.tokenMint), receiver.publicKey, true).toBase58(),
    ])).value;
    expect(ata.amount).toBe('777');
    for (const sig of [transfer, mintSig]) {
      const tx = await rpc<{ slot: number } | null>(second, 'getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
      expect(tx).not.toBeNull();
    }
    // The same round accounts, and the game goes on from the open round.
    expect(await accountBase64(second, pdas.round(1).toBase58())).not.toBeNull();
    const next = await second.waitForSettled(stoppedAt.roundId, 20_000);
    expect(next.id).toBe(stoppedAt.roundId);
    // A further mint works (the mint authority and its SOL came back too).
    await second.mintTokens(receiver.publicKey.toBase58(), 1n);
  });

  it('serves the same history transactions after a restart, closed rounds still closed, settled rounds the same', async () => {
    const options = { ...OPTIONS, ledgerDir: dir, roundExpirySlots: 40 };
    const first = await start(options);
    const pdas = new OrePdas(first.programId);
    const round = (id: number) => pdas.round(id).toBase58();
    await first.waitForSettled(first.currentRoundId() + 1);
    const listed = await rpc<{ signature: string }[]>(first, 'getSignaturesForAddress', [round(2), { limit: 1000 }]);
    const sigs = listed.map((s) => s.signature);
    const before = await Promise.all(sigs.slice(0, 5).map((s) => rpc(first, 'getTransaction', [s, { encoding: 'json', maxSupportedTransactionVersion: 0 }])));
    expect(await accountBase64(first, round(2))).toBeNull();
    await first.stop();
    running.splice(0);
    const settled = first.settledRounds();

    const second = await start(options);
    expect(second.settledRounds().slice(0, settled.length)).toEqual(settled);
    expect(await accountBase64(second, round(2))).toBeNull();
    const again = await rpc<{ signature: string }[]>(second, 'getSignaturesForAddress', [round(2), { limit: 1000 }]);
    expect(again.map((s) => s.signature)).toEqual(sigs);
    expect(await Promise.all(sigs.slice(0, 5).map((s) => rpc(second, 'getTransaction', [s, { encoding: 'json', maxSupportedTransactionVersion: 0 }])))).toEqual(before);
  });

  it('gives a chain started again from genesis another genesis hash', async () => {
    const a = await start({ ...OPTIONS });
    const b = await start({ ...OPTIONS });
    expect(a.genesisHash).not.toBe(b.genesisHash);
    expect(a.ledgerFile).toBeNull();
  });

  it('refuses a ledger of an unknown version, or of another program, with a message naming make reset', async () => {
    const first = await start({ ...OPTIONS, ledgerDir: dir });
    await first.stop();
    running.splice(0);
    await expect(startDevnet({ ...OPTIONS, ledgerDir: dir, programId: Keypair.generate().publicKey.toBase58() })).rejects.toThrow(/ORE program .*make reset/s);
    const file = join(dir, 'ledger.json');
    const doc = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify({ ...doc, game: { ...(doc['game'] as object), version: 999 } }));
    await expect(startDevnet({ ...OPTIONS, ledgerDir: dir })).rejects.toThrow(/game state has version 999.*make reset/s);
  });
});
