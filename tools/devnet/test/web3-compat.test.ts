import { decodeBoard, decodeRound, OrePdas, settleBy, settleReturns, winningSquare } from '@gridlab/chain';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  Transaction,
  TransactionInstruction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { closeWeb3Connection } from '@gridlab/testing';
import { startDevnet, type Devnet } from '../src';

const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const DECIMALS = 11;

let devnet: Devnet;
let connection: Connection;
let pdas: OrePdas;

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: 50, seed: 3 });
  connection = new Connection(devnet.rpcUrl, { commitment: 'confirmed', wsEndpoint: devnet.wsUrl });
  pdas = new OrePdas(devnet.programId);
});

afterAll(async () => {
  closeWeb3Connection(connection);
  await devnet.stop();
});

async function fundedWallet(sol: number): Promise<Keypair> {
  const wallet = Keypair.generate();
  const sig = await connection.requestAirdrop(wallet.publicKey, sol * LAMPORTS_PER_SOL);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const status = await connection.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight });
  expect(status.value.err).toBeNull();
  return wallet;
}

describe('devnet through an unchanged @solana/web3.js Connection', () => {
  it('serves the ORE board and round accounts, owned by the program', async () => {
    const board = await connection.getAccountInfo(pdas.board);
    expect(board?.owner.toBase58()).toBe(devnet.programId);
    const decoded = decodeBoard(board!.data);
    expect(decoded.roundId).toBe(51);
    // Live rounds are the program as it runs today: 952 bytes, and the board's u64 @32 is its cost.
    const round = await connection.getAccountInfo(pdas.round(decoded.roundId));
    expect(round?.data.length).toBe(952);
    expect(decodeRound(round!.data).id).toBe(51);
    expect(decoded.epochOrCost).toBeGreaterThan(0);
  });

  it('finds the history rounds of every era with dataSize and discriminator filters, settled by the rules', async () => {
    const find = (dataSize: number) =>
      connection.getProgramAccounts(new PublicKey(devnet.programId), { filters: [{ dataSize }, { memcmp: { offset: 0, bytes: bs58.encode([109]) } }] });
    const accounts = [...(await find(568)), ...(await find(952))];
    const rounds = accounts.map((a) => decodeRound(a.account.data));
    const settled = rounds.filter((r) => r.id <= 50);
    expect(settled.map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // The history in thirds: 568-byte rounds, then 952-byte parimutuel, then 952-byte returns.
    expect(settled.filter((r) => r.layout === 568).map((r) => r.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    for (const r of settled) {
      const own = devnet.settledRounds().find((x) => x.id === r.id)!;
      expect(own.payoutRule).toBe(r.id <= 33 ? 'parimutuel' : 'returns');
      const totals = settleBy(own.payoutRule, r.deployed, winningSquare(r.slotHash));
      if (winningSquare(r.slotHash) === null) continue;
      expect(r.totalWinnings).toBe(totals.totalWinnings);
      expect(r.totalVaulted).toBe(totals.totalVaulted);
      expect(own.winningSquare).toBe(winningSquare(r.slotHash));
      expect(pdas.round(r.id).toBase58()).toBe(accounts.find((a) => decodeRound(a.account.data).id === r.id)!.pubkey.toBase58());
    }
  });

  it('notifies onAccountChange as deploys land on the current round', async () => {
    const roundId = devnet.currentRoundId();
    const change = new Promise<Buffer>((resolve) => {
      const id = connection.onAccountChange(pdas.round(roundId), (info) => {
        void connection.removeAccountChangeListener(id);
        resolve(info.data);
      });
    });
    const data = await change;
    expect(decodeRound(data).id).toBe(roundId);
  });

  it('settles live rounds with totals from the settlement rule', async () => {
    const next = devnet.currentRoundId();
    const round = await devnet.waitForSettled(next, 10_000);
    expect(round.payoutRule).toBe('returns');
    if (round.winningSquare !== null) expect(round.totalWinnings).toBe(settleReturns(round.deployed, round.winningSquare).totalWinnings);
    const account = await connection.getAccountInfo(pdas.round(next));
    expect(winningSquare(decodeRound(account!.data).slotHash)).toBe(round.winningSquare);
  });

  it('runs a real SPL TransferChecked with a memo and reports it like a mainnet RPC', async () => {
    const payer = await fundedWallet(2);
    const mint = new PublicKey(devnet.tokenMint);
    const payerAta = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const mintSig = await connection.getSignatureStatus(
      (await (await fetch(devnet.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'devnet_mintTokens', params: [payer.publicKey.toBase58(), '500000000000'] }),
      })).json() as { result: string }).result,
    );
    expect(mintSig.value?.err).toBeNull();
    expect((await connection.getTokenAccountBalance(payerAta)).value.amount).toBe('500000000000');

    const treasuryAta = new PublicKey(devnet.treasuryTokenAccount);
    const nonce = 'pay-3xJ8kq2W9cVbN4mT7rLpQa';
    const tx = new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, treasuryAta, new PublicKey(devnet.treasury), mint),
      createTransferCheckedInstruction(payerAta, mint, treasuryAta, payer.publicKey, 10_000_000_000n, DECIMALS),
      new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: false }], data: Buffer.from(nonce) }),
    );
    const signature = await sendAndConfirmTransaction(connection, tx, [payer]);
    const found = await connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(found?.meta?.err).toBeNull();
    expect(found?.blockTime).toBeGreaterThan(1_700_000_000);
    expect(found?.slot).toBeGreaterThan(0);
    expect(found?.meta?.logMessages?.join('\n')).toContain(nonce);
    const pre = found!.meta!.preTokenBalances!;
    const post = found!.meta!.postTokenBalances!;
    const amountOf = (list: typeof pre, owner: string) => list.find((b) => b.owner === owner && b.mint === devnet.tokenMint)?.uiTokenAmount.amount;
    expect(amountOf(pre, payer.publicKey.toBase58())).toBe('500000000000');
    expect(amountOf(post, payer.publicKey.toBase58())).toBe('490000000000');
    expect(amountOf(pre, devnet.treasury)).toBe('0');
    expect(amountOf(post, devnet.treasury)).toBe('10000000000');
    expect(post.find((b) => b.owner === devnet.treasury)?.uiTokenAmount.decimals).toBe(DECIMALS);
    const keys = found!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    expect(keys[0]).toBe(payer.publicKey.toBase58());
  });

  it('rejects a transfer of more than the balance with a simulation error, and a replay', async () => {
    const payer = await fundedWallet(1);
    const mint = new PublicKey(devnet.tokenMint);
    await devnet.mintTokens(payer.publicKey.toBase58(), 1000n);
    const payerAta = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const tx = new Transaction().add(
      createTransferCheckedInstruction(payerAta, mint, new PublicKey(devnet.treasuryTokenAccount), payer.publicKey, 5000n, DECIMALS),
    );
    await expect(sendAndConfirmTransaction(connection, tx, [payer])).rejects.toThrow(/simulation failed|insufficient funds/i);
    const ok = new Transaction().add(
      createTransferCheckedInstruction(payerAta, mint, new PublicKey(devnet.treasuryTokenAccount), payer.publicKey, 10n, DECIMALS),
    );
    await sendAndConfirmTransaction(connection, ok, [payer]);
    await expect(connection.sendRawTransaction(ok.serialize())).rejects.toThrow(/AlreadyProcessed|already been processed/i);
  });

  it('answers unknown methods and bad params with JSON-RPC errors', async () => {
    const call = async (method: string, params: unknown[]) =>
      (await (await fetch(devnet.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
      })).json()) as { error?: { code: number } };
    expect((await call('noSuchMethod', [])).error?.code).toBe(-32601);
    expect((await call('getAccountInfo', ['not-a-key'])).error?.code).toBe(-32602);
    expect((await call('devnet_mintTokens', [Keypair.generate().publicKey.toBase58(), '-5'])).error?.code).toBe(-32602);
  });
});
