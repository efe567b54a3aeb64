/**
 * The history methods as a mainnet node answers them: getSignaturesForAddress paging
 * (newest first, before/until/limit), getTransaction and getParsedTransaction through an
 * unchanged @solana/web3.js Connection, batches, and the errors for bad params.
 */
import { OrePdas, VAR_VALUE_LOG_PREFIX, decodeDeployArgs, decodeOreEvent } from '@gridlab/chain';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction, sendAndConfirmTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { closeWeb3Connection } from '@gridlab/testing';
import { startDevnet, type Devnet } from '../src';
import { allSignatures, batch, call, rpc, transactions, type SignatureInfo } from './rpc-client';

let devnet: Devnet;
let connection: Connection;
let pdas: OrePdas;

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: 12, seed: 41 });
  connection = new Connection(devnet.rpcUrl, { commitment: 'confirmed', wsEndpoint: devnet.wsUrl });
  pdas = new OrePdas(devnet.programId);
});

afterAll(async () => {
  closeWeb3Connection(connection);
  await devnet.stop();
});

const byPosition = (a: SignatureInfo, b: SignatureInfo) => b.slot - a.slot;

describe('getSignaturesForAddress', () => {
  it('pages a round PDA newest first: the reset that created it, its deploys, its reset', async () => {
    const round = 5;
    const all = await allSignatures(devnet.rpcUrl, pdas.round(round).toBase58());
    expect([...all].sort(byPosition).map((s) => s.slot)).toEqual(all.map((s) => s.slot));
    expect(all.every((s) => s.err === null && s.memo === null && s.confirmationStatus === 'finalized' && s.blockTime > 1_700_000_000)).toBe(true);
    const txs = await transactions<{ transaction: { message: { instructions: { data: string }[] } } }>(devnet.rpcUrl, all.map((s) => s.signature));
    const kinds = txs.map((tx) => bs58.decode(tx.transaction.message.instructions[0]!.data)[0]);
    // Newest first: this round's reset (9), its deploys (6), the previous round's reset (9) that created it.
    expect(kinds[0]).toBe(9);
    expect(kinds.at(-1)).toBe(9);
    expect(kinds.slice(1, -1).every((k) => k === 6)).toBe(true);
    expect(kinds.length).toBeGreaterThan(200);
    const record = devnet.settledRounds().find((r) => r.id === round)!;
    const staked = txs.slice(1, -1).reduce((sum, tx) => sum + decodeDeployArgs(bs58.decode(tx.transaction.message.instructions[0]!.data))!.amount, 0);
    expect(staked).toBeGreaterThan(0);
    expect(record.totalDeployed).toBeGreaterThan(0);
  });

  it('pages with limit, before and until to the same list, and stops at until', async () => {
    const board = pdas.board.toBase58();
    devnet.pause();
    try {
      const first = await rpc<SignatureInfo[]>(devnet.rpcUrl, 'getSignaturesForAddress', [board, { limit: 1000 }]);
      expect(first).toHaveLength(1000);
      const paged = await allSignatures(devnet.rpcUrl, board, 137);
      expect(paged.slice(0, 1000)).toEqual(first);
      expect(new Set(paged.map((s) => s.signature)).size).toBe(paged.length);
      // Every game transaction: 12 history rounds (+ live) of several hundred deploys and a reset each.
      expect(paged.length).toBeGreaterThan(12 * 200);
      expect(await rpc(devnet.rpcUrl, 'getSignaturesForAddress', [devnet.programId, { limit: 1000 }])).toEqual(first);
      const until = paged[250]!.signature;
      const before = paged[100]!.signature;
      const window = await rpc<SignatureInfo[]>(devnet.rpcUrl, 'getSignaturesForAddress', [board, { before, until }]);
      expect(window).toEqual(paged.slice(101, 250));
      const limited = await rpc<SignatureInfo[]>(devnet.rpcUrl, 'getSignaturesForAddress', [board, { before, until, limit: 20 }]);
      expect(limited).toEqual(paged.slice(101, 121));
      // The default limit is 1000.
      expect(await rpc<SignatureInfo[]>(devnet.rpcUrl, 'getSignaturesForAddress', [board])).toHaveLength(1000);
    } finally {
      devnet.resume();
    }
  });

  it('answers nothing before an unknown signature and nothing for an address without transactions', async () => {
    const unknown = bs58.encode(new Uint8Array(64).fill(7));
    expect(await rpc(devnet.rpcUrl, 'getSignaturesForAddress', [pdas.board.toBase58(), { before: unknown }])).toEqual([]);
    expect(await rpc(devnet.rpcUrl, 'getSignaturesForAddress', [Keypair.generate().publicKey.toBase58()])).toEqual([]);
    expect(await rpc(devnet.rpcUrl, 'getTransaction', [unknown, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).toBeNull();
  });

  it('refuses bad params with -32602 and a minContextSlot ahead with -32016', async () => {
    const board = pdas.board.toBase58();
    for (const params of [
      ['not-a-key'],
      [board, { limit: 0 }],
      [board, { limit: 1001 }],
      [board, { limit: 2.5 }],
      [board, { before: 'xyz' }],
      [board, { until: bs58.encode(new Uint8Array(32)) }],
      [board, { commitment: 'processed' }],
    ]) {
      expect((await call(devnet.rpcUrl, 'getSignaturesForAddress', params)).body.error?.code).toBe(-32602);
    }
    expect((await call(devnet.rpcUrl, 'getSignaturesForAddress', [board, { minContextSlot: devnet.slot() + 1_000_000 }])).body.error?.code).toBe(-32016);
  });

  it('lists the ledger’s own transactions under their addresses (airdrops, transfers)', async () => {
    const payer = Keypair.generate();
    const receiver = Keypair.generate();
    await connection.confirmTransaction(await connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL));
    const sig = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: receiver.publicKey, lamports: 5_000_000 })),
      [payer],
    );
    const listed = await connection.getSignaturesForAddress(payer.publicKey);
    expect(listed.map((s) => s.signature)[0]).toBe(sig);
    expect(listed).toHaveLength(2);
    expect((await connection.getSignaturesForAddress(receiver.publicKey)).map((s) => s.signature)).toEqual([sig]);
  });
});

describe('getTransaction of the game', () => {
  it('parses through web3.js: a deploy with its Deploy data, transfer and DeployEvent, the reset with its var value', async () => {
    const [newest, , , oldest] = await connection.getSignaturesForAddress(pdas.round(11), { limit: 4 });
    expect(newest).toBeDefined();
    const reset = await connection.getTransaction(newest!.signature, { maxSupportedTransactionVersion: 0 });
    expect(reset?.version).toBe('legacy');
    expect(reset?.meta?.err).toBeNull();
    expect(reset?.transaction.message.staticAccountKeys).toHaveLength(18);
    const logs = reset!.meta!.logMessages!;
    expect(logs.some((l) => l.startsWith(VAR_VALUE_LOG_PREFIX))).toBe(true);
    expect(logs.some((l) => /^Program log: Winning square: \d+$/.test(l))).toBe(true);
    const inner = reset!.meta!.innerInstructions![0]!.instructions;
    const keys = reset!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    expect(keys[inner[0]!.programIdIndex]).toBe('11111111111111111111111111111111');
    expect(keys[inner[0]!.accounts[1]!]).toBe(pdas.round(12).toBase58());
    expect(keys[inner[1]!.programIdIndex]).toBe(devnet.programId);
    expect(inner[1]!.accounts.map((i) => keys[i])).toEqual([pdas.board.toBase58()]);
    const event = decodeOreEvent(bs58.decode(inner[1]!.data).subarray(1));
    expect(event).toMatchObject({ kind: 'reset', roundId: 11, length: 144, ts: reset!.blockTime });

    const deploy = await connection.getTransaction(oldest!.signature, { maxSupportedTransactionVersion: 0 });
    const dkeys = deploy!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    const ix = deploy!.transaction.message.compiledInstructions[0]!;
    expect(ix.accountKeyIndexes.map((i) => dkeys[i])).toEqual([
      dkeys[0], dkeys[0], dkeys[1], pdas.board.toBase58(), dkeys[3], dkeys[4], pdas.round(11).toBase58(), pdas.treasury.toBase58(),
      '11111111111111111111111111111111', devnet.programId, dkeys[7], '3jSkUuYBoJzQPMEzTvkDFXCZUBksPamrVhrnHR9igu2X',
    ]);
    expect(decodeDeployArgs(ix.data)).not.toBeNull();
    expect(deploy!.meta!.logMessages!.some((l) => /^Program log: Round #11: deploying [\d.]+ SOL to \d+ squares$/.test(l))).toBe(true);
    expect(deploy!.meta!.fee).toBe(5000);
    expect(deploy!.meta!.preBalances).toHaveLength(dkeys.length);
  });

  it('serves getParsedTransaction: system instructions parsed, the program’s partially decoded', async () => {
    const [reset] = await connection.getSignaturesForAddress(pdas.round(11), { limit: 1 });
    const parsed = await connection.getParsedTransaction(reset!.signature, { maxSupportedTransactionVersion: 0 });
    expect(parsed?.transaction.message.accountKeys[0]).toMatchObject({ signer: true, writable: true });
    const inner = parsed!.meta!.innerInstructions![0]!.instructions;
    expect(inner[0]).toMatchObject({ program: 'system', parsed: { type: 'createAccount', info: { newAccount: pdas.round(12).toBase58(), space: 952 } } });
    expect(inner[1]).toMatchObject({ programId: new PublicKey(devnet.programId), accounts: [pdas.board] });
  });

  it('answers a batch of 100 getTransaction, and getSignatureStatuses, for derived signatures', async () => {
    const sigs = (await rpc<SignatureInfo[]>(devnet.rpcUrl, 'getSignaturesForAddress', [pdas.board.toBase58(), { limit: 100 }])).map((s) => s.signature);
    const { status, items } = await batch(devnet.rpcUrl, sigs.map((s) => ({ method: 'getTransaction', params: [s, { encoding: 'json', maxSupportedTransactionVersion: 0 }] })));
    expect(status).toBe(200);
    expect(items.map((i) => (i.result as { transaction: { signatures: string[] } }).transaction.signatures[0])).toEqual(sigs);
    const statuses = await connection.getSignatureStatuses(sigs.slice(0, 5));
    expect(statuses.value.every((s) => s?.confirmationStatus === 'finalized' && s.err === null)).toBe(true);
  });

  it('shows no transaction of a deploy that has not happened yet', async () => {
    devnet.pause();
    try {
      const live = devnet.currentRoundId();
      const listed = await allSignatures(devnet.rpcUrl, pdas.round(live).toBase58());
      expect(listed.every((s) => s.slot <= devnet.slot())).toBe(true);
      const { value } = await connection.getSignatureStatuses(listed.slice(0, 1).map((s) => s.signature));
      expect(listed.length === 0 || value[0] !== null).toBe(true);
    } finally {
      devnet.resume();
    }
  });
});
