/**
 * Automated deploys as the devnet's transactions show them, through its JSON-RPC: the
 * executor signs (account 0) for the authority (account 1), the program moves the
 * automation's SOL (no system transfer), and the DeployEvent carries the strategy and the
 * executor as signer, with the instruction's mask until the deployed-mask era and the
 * squares taken since. The round's stakes are what the deploys actually moved, and from
 * the deployed-mask era on the indexer's reading (@gridlab/chain `rebuildRound`) rebuilds
 * every round from them, automated deploys included.
 */
import bs58 from 'bs58';
import { OrePdas, decodeDeployArgs, decodeOreEvent, readOreTransaction, rebuildRound, toSettledRound, type DeployEvent, type RoundLayout, type TransactionJson } from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import { provableRound } from '@gridlab/testing';
import { startDevnet, type Devnet } from '../src';
import { eraStarts } from '../src/game/eras';
import { allSignatures, transactions } from './rpc-client';

const HISTORY = 120;
const DEPLOY = 6;
const FEE = 5000;
let devnet: Devnet;
let pdas: OrePdas;

interface RawTx {
  transaction: { message: { accountKeys: string[]; instructions: { programIdIndex: number; accounts: number[]; data: string }[] } };
  meta: { preBalances: number[]; postBalances: number[]; innerInstructions: { instructions: { programIdIndex: number; data: string }[] }[] };
}

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: HISTORY, seed: 41, eras: 'mixed', deploysPerRound: 40, automatedShare: 0.3 });
  pdas = new OrePdas(devnet.programId);
  devnet.pause();
});

afterAll(() => devnet.stop());

const popcount = (mask: number): number => mask.toString(2).replace(/0/g, '').length;

describe('automated deploys in the devnet transactions', () => {
  it('are signed by the executor for the authority, move the automation lamports as the program does, and log what each era logged', async () => {
    const eras = eraStarts('mixed', 1, HISTORY);
    const executors = new Set<string>();
    const seen = { automated: 0, stoppedShort: 0, closedSilently: 0, requestedEra: 0, random: 0, preferred: 0 };
    for (let id = 1; id <= HISTORY; id++) {
      const listed = await allSignatures(devnet.rpcUrl, pdas.round(id).toBase58());
      const txs = await transactions<RawTx & TransactionJson>(devnet.rpcUrl, listed.map((s) => s.signature).reverse());
      let stakes = 0;
      for (const tx of txs) {
        const keys = tx.transaction.message.accountKeys;
        const ix = tx.transaction.message.instructions.at(-1)!;
        if (keys[ix.programIdIndex] !== devnet.programId || bs58.decode(ix.data)[0] !== DEPLOY) continue;
        const { pre, post } = { pre: tx.meta.preBalances, post: tx.meta.postBalances };
        const at = (account: number) => ix.accounts[account]!;
        const delta = (account: number) => post[at(account)]! - pre[at(account)]!;
        // deploy.rs accounts: signer, authority, automation, board, config, miner, round, ...
        const roundDelta = delta(6);
        stakes += roundDelta;
        const args = decodeDeployArgs(bs58.decode(ix.data));
        // Events are the data of the program's self-CPI `Log` instruction after its discriminator 8.
        const logged = tx.meta.innerInstructions
          .flatMap((i) => i.instructions)
          .filter((i) => keys[i.programIdIndex] === devnet.programId)
          .map((i) => decodeOreEvent(bs58.decode(i.data).subarray(1)))
          .filter((e): e is DeployEvent => e?.kind === 'deploy');
        if (at(0) === at(1)) continue;
        // Automated: the executor signs and pays the transaction fee; the authority signs nothing.
        seen.automated++;
        executors.add(keys[at(0)]!);
        expect(at(0)).toBe(0);
        expect(at(1)).toBe(1);
        const automationDelta = delta(2);
        const executorFee = delta(0) + FEE;
        const closed = post[at(2)] === 0;
        // The automation pays the stakes and the fee; closed, the rest goes to the authority.
        expect(automationDelta).toBe(-(roundDelta + executorFee) - (closed ? delta(1) : 0));
        expect(delta(1)).toBe(closed ? pre[at(2)]! - roundDelta - executorFee : 0);
        expect(executorFee).toBeGreaterThan(0);
        if (eras.deployEvents > id) {
          expect(logged).toEqual([]);
          continue;
        }
        if (logged.length === 0) {
          // Since the 2026-06 program, an automation that cannot pay every square closes without deploying or logging.
          expect({ id, layout: id >= eras.current, closed, roundDelta }).toEqual({ id, layout: true, closed: true, roundDelta: 0 });
          seen.closedSilently++;
          continue;
        }
        const e = logged[0]!;
        expect(e.signer).toBe(keys[0]);
        expect(e.authority).toBe(keys[1]);
        expect([0, 1]).toContain(e.strategy);
        if (e.strategy === 0) seen.random++;
        else seen.preferred++;
        expect(roundDelta).toBe(e.amount * e.totalSquares);
        if (id < eras.deployedMask) {
          seen.requestedEra++;
          expect(e.mask).toBe(args!.squares);
        } else expect(popcount(e.mask)).toBe(e.totalSquares);
        // The balance ran out mid-deploy (v3): fewer squares than the automation asks for every round.
        if (closed && id < eras.current && e.totalSquares > 0) seen.stoppedShort++;
      }
      const record = devnet.settledRounds().find((r) => r.id === id)!;
      // The round holds what the deploys moved: the record's stakes (a voided 952-byte parimutuel round erased them).
      if (!(record.winningSquare === null && id >= eras.current)) expect({ id, stakes }).toEqual({ id, stakes: record.deployed.reduce((a, b) => a + b, 0) });
    }
    expect(executors.size).toBe(1);
    expect(seen.automated).toBeGreaterThan(200);
    expect(seen.random).toBeGreaterThan(10);
    expect(seen.preferred).toBeGreaterThan(10);
    expect(seen.requestedEra).toBeGreaterThan(5);
    expect(seen.stoppedShort).toBeGreaterThan(0);
    expect(seen.closedSilently).toBeGreaterThan(0);
  });

  it('rebuild with the indexer reading as the chain proves them: whole once the program logs the squares taken, partly known before', async () => {
    const eras = eraStarts('mixed', 1, HISTORY);
    const ids = { programId: devnet.programId, board: pdas.board.toBase58() };
    let previousLayout: RoundLayout = 568;
    const seen = { whole: 0, partial: 0, wholeWithAutomated: 0 };
    for (let id = 1; id <= HISTORY; id++) {
      const listed = await allSignatures(devnet.rpcUrl, pdas.round(id).toBase58());
      const txs = (await transactions<TransactionJson>(devnet.rpcUrl, listed.map((s) => s.signature).reverse())).map((t) => readOreTransaction(t, ids));
      const rebuilt = rebuildRound({ roundId: id, roundAddress: pdas.round(id).toBase58(), transactions: txs, fallbackLayout: previousLayout });
      if (!rebuilt.ok) throw new Error(`round ${id}: ${rebuilt.reason} ${rebuilt.detail}`);
      const record = devnet.settledRounds().find((r) => r.id === id)!;
      const round: Round = toSettledRound(rebuilt.account, rebuilt.settledAt!, { payoutRule: record.payoutRule, productionCost: record.productionCost, unknown: rebuilt.unknown });
      const deploys = devnet.roundDeploys(id)!;
      expect({ ...round, motherlodePool: null, source: null }).toEqual({ ...provableRound(record, deploys), motherlodePool: null, source: null });
      if (round.source === 'transactions_partial') seen.partial++;
      else seen.whole++;
      if (round.source !== 'transactions_partial' && deploys.automatedWithSquares > 0) seen.wholeWithAutomated++;
      previousLayout = rebuilt.account.layout;
    }
    // Every era was exercised: partly known rounds before the 144-byte ResetEvent, whole ones with automated deploys after it.
    expect(seen.partial).toBeGreaterThan(0);
    expect(seen.wholeWithAutomated).toBeGreaterThan(0);
    expect(eras.resetEvent144).toBeLessThan(HISTORY);
  });
});
