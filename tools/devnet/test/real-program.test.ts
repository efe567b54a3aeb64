/**
 * The devnet's real-program mode: with the v3 era, its live rounds are played by the ORE
 * program's own mainnet executable in the devnet's LiteSVM. The rounds' accounts are read
 * here from SPEC 3's offsets (not with libs/chain's codec, nor the devnet's reader), and
 * their transactions as a client gets them: real signatures, the program's logs, its
 * self-CPI Log events among the inner instructions.
 */
import { OrePdas, inferPayoutRule, readOreTransaction, rebuildRound, toSettledRound, type TransactionJson } from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { roundV3AtOffsets } from '@gridlab/testing';
import { startDevnet, type Devnet } from '../src';
import { allSignatures, rpc, transactions } from './rpc-client';

const HISTORY = 6;
const LIVE = 4;
const FIRST_LIVE = HISTORY + 1;
const LAST_LIVE = HISTORY + LIVE;
const ORE = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';
const ENTROPY = '3jSkUuYBoJzQPMEzTvkDFXCZUBksPamrVhrnHR9igu2X';
/** The ORE program's Checkpoint instruction (its first data byte). */
const CHECKPOINT = 2;
/** 0.2 ORE: what every reset with someone on the winning square adds to the motherlode pool (reset.rs). */
const MOTHERLODE_STEP = 20_000_000_000;

interface AccountInfo {
  value: { data: [string, string]; owner: string; lamports: number } | null;
}

async function account(devnet: Devnet, address: string): Promise<{ data: Uint8Array; owner: string } | null> {
  const { value } = await rpc<AccountInfo>(devnet.rpcUrl, 'getAccountInfo', [address, { encoding: 'base64' }]);
  return value === null ? null : { data: new Uint8Array(Buffer.from(value.data[0], 'base64')), owner: value.owner };
}

interface Tx {
  slot: number;
  blockTime: number;
  transaction: { signatures: string[]; message: { accountKeys: string[]; instructions: { programIdIndex: number; accounts: number[]; data: string }[] } };
  meta: { err: unknown; logMessages: string[]; innerInstructions: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[] }[] };
}

let devnet: Devnet;
let pdas: OrePdas;
/** Board notifications seen over the WebSocket while the live rounds ran: [round id, end_slot is u64::MAX]. */
const boardNotes: [number, boolean][] = [];
let socket: WebSocket;

beforeAll(async () => {
  // 2 ms slots: a round of the program's 150 slots and 35 of intermission takes about half a second.
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 2, historyRounds: HISTORY, seed: 31, eras: 'v3', deploysPerRound: 8 });
  pdas = new OrePdas(devnet.programId);
  socket = new WebSocket(devnet.wsUrl);
  await new Promise((resolve) => socket.once('open', resolve));
  socket.on('message', (raw: Buffer) => {
    const note = JSON.parse(raw.toString()) as { method?: string; params?: { result: { value: { data: [string, string] } } } };
    if (note.method !== 'accountNotification') return;
    const data = Buffer.from(note.params!.result.value.data[0], 'base64');
    boardNotes.push([Number(data.readBigUInt64LE(8)), data.readBigUInt64LE(24) === 0xffff_ffff_ffff_ffffn]);
  });
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params: [pdas.board.toBase58(), { encoding: 'base64' }] }));
  await devnet.waitForSettled(LAST_LIVE, 30_000);
  devnet.pause();
  socket.close();
});

afterAll(() => devnet.stop());

async function roundTransactions(id: number): Promise<Tx[]> {
  const listed = await allSignatures(devnet.rpcUrl, pdas.round(id).toBase58());
  return transactions<Tx>(devnet.rpcUrl, listed.map((s) => s.signature).reverse());
}

describe('the real ORE program plays the live rounds of a v3 devnet', () => {
  it('says so, and plays the history with the port', () => {
    expect(devnet.liveProgram).toBe('2026-04');
    expect(devnet.settledRounds().map((r) => r.id)).toEqual(Array.from({ length: devnet.currentRoundId() - 1 }, (_, i) => i + 1));
  });

  it('serves the Round accounts the program wrote, which the devnet reports as settled', async () => {
    for (let id = FIRST_LIVE; id <= LAST_LIVE; id++) {
      const found = await account(devnet, pdas.round(id).toBase58());
      expect(found?.owner).toBe(ORE);
      const round = roundV3AtOffsets(found!.data);
      const record = devnet.settledRounds().find((r) => r.id === id)!;
      expect({ ...round, expiresAt: undefined, rentPayer: undefined }).toEqual({
        id,
        deployed: record.deployed,
        slotHash: record.slotHash,
        count: record.count,
        motherlode: record.motherlode,
        topMinerReward: record.topMinerReward,
        totalDeployed: record.totalDeployed,
        totalMiners: record.totalMiners,
        totalVaulted: record.totalVaulted,
        totalWinnings: record.totalWinnings,
        winningSquare: record.winningSquare,
        expiresAt: undefined,
        rentPayer: undefined,
      });
      expect(round.totalDeployed).toBe(round.deployed.reduce((a, b) => a + b, 0));
      expect(round.totalDeployed).toBeGreaterThan(0);
    }
  });

  it('lands every game transaction as sent, with the program logs and its Log events among the inner instructions', async () => {
    const signers = new Set<string>();
    for (let id = FIRST_LIVE; id <= LAST_LIVE; id++) {
      const txs = await roundTransactions(id);
      const kinds = txs.map((tx) => {
        const keys = tx.transaction.message.accountKeys;
        const programs = tx.transaction.message.instructions.map((ix) => keys[ix.programIdIndex]);
        const oreData = tx.transaction.message.instructions.filter((ix) => keys[ix.programIdIndex] === ORE).map((ix) => bs58.decode(ix.data)[0]);
        expect(tx.meta.err).toBeNull();
        expect(tx.meta.logMessages[0]).toMatch(/^Program \w+ invoke \[1\]$/);
        return programs.includes(ENTROPY) ? 'entropy' : oreData.includes(9) ? 'reset' : oreData.at(-1) === 6 ? 'deploy' : `other ${oreData.join()}`;
      });
      // A wallet back in a later round checkpoints this one in the transaction of its next deploy, which lists this round after its reset.
      const settledAt = kinds.lastIndexOf('reset');
      for (const tx of txs.slice(settledAt + 1)) {
        const keys = tx.transaction.message.accountKeys;
        const first = tx.transaction.message.instructions.find((ix) => keys[ix.programIdIndex] === ORE)!;
        expect([bs58.decode(first.data)[0], keys[first.accounts[3]!]]).toEqual([CHECKPOINT, pdas.round(id).toBase58()]);
      }
      const own = kinds.slice(0, settledAt + 1);
      // The previous round's reset created this round's account (the history's for the first live round: derived, not listed here).
      const body = id === FIRST_LIVE ? own : own.slice(1);
      if (id !== FIRST_LIVE) expect(kinds[0]).toBe('reset');
      expect(body.at(-1)).toBe('reset');
      expect(body.slice(0, -1).every((k) => k === 'deploy')).toBe(true);
      const deploys = txs.filter((_, i) => i < settledAt && kinds[i] === 'deploy');
      expect(deploys.length).toBeGreaterThan(0);
      for (const tx of deploys) {
        // Paid and signed by the miner's own key (LiteSVM verified the signature).
        const signer = tx.transaction.message.accountKeys[0]!;
        signers.add(signer);
        // The program logs its DeployEvent by a self-CPI of Log (discriminator 8) at stack height 2.
        const logs = tx.meta.innerInstructions.flatMap((inner) => inner.instructions).filter((ix) => tx.transaction.message.accountKeys[ix.programIdIndex] === ORE);
        expect(logs.map((ix) => [bs58.decode(ix.data)[0], ix.stackHeight])).toContainEqual([8, 2]);
        expect(tx.meta.logMessages.some((l) => /^Program log: Round #\d+: deploying [\d.]+ SOL to \d+ squares$/.test(l))).toBe(true);
      }
      const reset = txs[kinds.lastIndexOf('reset')]!;
      expect(reset.meta.logMessages.some((l) => l.startsWith('Program log: var value: '))).toBe(true);
    }
    expect(signers.size).toBeGreaterThan(3);
    for (const signer of signers) expect(PublicKey.isOnCurve(new PublicKey(signer).toBytes())).toBe(true);
  });

  it('rebuilds each live round from its transactions as the indexer would, equal to its account', async () => {
    const ids = { programId: devnet.programId, board: pdas.board.toBase58() };
    for (let id = FIRST_LIVE; id <= LAST_LIVE; id++) {
      const txs = (await roundTransactions(id)).map((tx) => readOreTransaction(tx as unknown as TransactionJson, ids));
      const rebuilt = rebuildRound({ roundId: id, roundAddress: pdas.round(id).toBase58(), transactions: txs, fallbackLayout: 568 });
      if (!rebuilt.ok) throw new Error(`round ${id}: ${rebuilt.reason} ${rebuilt.detail}`);
      const rule = inferPayoutRule(rebuilt.account, 'parimutuel');
      if (!rule.ok) throw new Error(rule.detail);
      const round: Round = toSettledRound(rebuilt.account, rebuilt.settledAt!, { payoutRule: rule.rule, productionCost: null });
      const onChain = roundV3AtOffsets((await account(devnet, pdas.round(id).toBase58()))!.data);
      expect({
        deployed: round.deployed,
        count: round.count,
        slotHash: round.slotHash,
        totalDeployed: round.totalDeployed,
        totalVaulted: round.totalVaulted,
        totalWinnings: round.totalWinnings,
        totalMiners: round.totalMiners,
        winningSquare: round.winningSquare,
        payoutRule: round.payoutRule,
      }).toEqual({
        deployed: onChain.deployed,
        count: onChain.count,
        slotHash: onChain.slotHash,
        totalDeployed: onChain.totalDeployed,
        totalVaulted: onChain.totalVaulted,
        totalWinnings: onChain.totalWinnings,
        totalMiners: onChain.totalMiners,
        winningSquare: onChain.winningSquare,
        payoutRule: 'parimutuel',
      });
    }
  });

  it('hands over from the port history: the next round id, the motherlode pool, the slots', async () => {
    const last = devnet.settledRounds().find((r) => r.id === HISTORY)!;
    const first = devnet.settledRounds().find((r) => r.id === FIRST_LIVE)!;
    // The pool the history left: paid out if the last round hit the motherlode, then 0.2 ORE if it minted.
    const pool = (last.motherlode > 0 ? 0 : last.motherlodePool!) + (last.topMinerReward > 0 ? MOTHERLODE_STEP : 0);
    expect(first.motherlodePool).toBe(first.motherlode > 0 ? first.motherlode : pool);
    // The last history reset (derived) precedes the first live deploy by a few slots.
    const lastReset = (await allSignatures(devnet.rpcUrl, pdas.round(HISTORY).toBase58()))[0]!;
    const firstLive = await roundTransactions(FIRST_LIVE);
    expect(firstLive[0]!.slot).toBeGreaterThan(lastReset.slot);
    expect(firstLive[0]!.slot).toBeLessThanOrEqual(lastReset.slot + 3 + 150);
    // Block times are the chain's clock, the one the history's are.
    expect(Math.abs(firstLive[0]!.blockTime - lastReset.blockTime - ((firstLive[0]!.slot - lastReset.slot) * 400) / 1000)).toBeLessThan(1);
    // The board went through every live round over the WebSocket: waiting, then running, for each.
    const seen = new Set(boardNotes.map(([id, waiting]) => `${id}:${waiting ? 'waiting' : 'running'}`));
    for (let id = FIRST_LIVE + 1; id <= LAST_LIVE; id++) {
      expect(seen.has(`${id}:waiting`)).toBe(true);
      expect(seen.has(`${id}:running`)).toBe(true);
    }
  });

  it('lists the history rounds and the live rounds among the program accounts', async () => {
    const accounts = await rpc<{ pubkey: string }[]>(devnet.rpcUrl, 'getProgramAccounts', [ORE, { encoding: 'base64', filters: [{ dataSize: 568 }] }]);
    const listed = new Set(accounts.map((a) => a.pubkey));
    for (let id = 1; id <= LAST_LIVE + 1; id++) expect(listed.has(pdas.round(id).toBase58())).toBe(true);
  });
});

describe('the real-program mode', () => {
  it('is refused for another program id when asked for', async () => {
    await expect(startDevnet({ rpcPort: 0, wsPort: 0, eras: 'v3', liveProgram: '2026-04', programId: 'HBUh9g46wk2X89CvaNN15UmsznP59rh6od1h8JwYAopk' })).rejects.toThrow(
      /real ORE program's: the real program runs only at mainnet's program id oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv/,
    );
  });

  it('leaves the live rounds to the port where the program cannot play them', async () => {
    const port = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 5, eras: 'v3', roundSlots: 8, intermissionSlots: 2, deploysPerRound: 4 });
    try {
      expect(port.liveProgram).toBe('port');
      const other = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 5, eras: 'mixed', deploysPerRound: 4 });
      expect(other.liveProgram).toBe('port');
      await other.stop();
    } finally {
      await port.stop();
    }
  });

  it('runs the executable of December 2025 when asked: its 128-byte ResetEvent', async () => {
    const old = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 2, historyRounds: 2, seed: 5, eras: 'v3', liveProgram: '2025-12', deploysPerRound: 4 });
    try {
      expect(old.liveProgram).toBe('2025-12');
      await old.waitForSettled(4, 30_000);
      old.pause();
      const oldPdas = new OrePdas(old.programId);
      const listed = await allSignatures(old.rpcUrl, oldPdas.round(3).toBase58());
      const txs = await transactions<Tx>(old.rpcUrl, listed.map((s) => s.signature));
      const resetLogs = txs
        .filter((tx) => tx.transaction.message.instructions.some((ix) => bs58.decode(ix.data)[0] === 9 && tx.transaction.message.accountKeys[ix.programIdIndex] === ORE))
        .flatMap((tx) => tx.meta.innerInstructions.flatMap((inner) => inner.instructions))
        .map((ix) => bs58.decode(ix.data))
        .filter((data) => data[0] === 8 && data[1] === 0);
      // The reset of round 3 (its own), and the one that created it (round 2's: the history's, derived, is not the ledger's).
      expect(resetLogs.map((data) => data.length - 1)).toEqual([128]);
    } finally {
      await old.stop();
    }
  });
});
