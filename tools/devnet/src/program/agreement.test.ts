/**
 * Two readings of one program, held against each other on random rounds of every era: the
 * devnet's port (this folder, written from the program's Rust source) plays a round — the
 * program's skip rule, its reset arithmetic, the account and event bytes of the round's
 * era — and the indexer's reading (@gridlab/chain) must decode those bytes to the same
 * fields, settle the same board to the same totals, infer the round's rule from them, and
 * rebuild from the round's transactions the account the port wrote. Boards reach the
 * edges the devnet's crowd rarely plays: empty squares, 1-lamport squares, amounts whose
 * divisions by 100 and 10 leave every remainder, totals near 2^53.
 */
import { createHash } from 'node:crypto';
import {
  createAccountData,
  decodeDeployArgs,
  decodeOreEvent,
  decodeRound,
  inferPayoutRule,
  isSplitByRng as chainSplitByRng,
  isSplitSquare as chainSplitSquare,
  readOreTransaction,
  rebuildRound,
  settleBy,
  slotHashRng,
  toSettledRound,
  winningSquare as chainWinningSquare,
  type DeployEvent,
  type ResetEvent,
  type TransactionJson,
} from '@gridlab/chain';
import bs58 from 'bs58';
import fc from 'fast-check';
import { deployData, deployEvent, logData, resetEvent, INSTRUCTION } from './events';
import { isSplitByRng, isSplitSquare, parimutuelReset, returnsReset, rng as portRng, winningSquare } from './round-rules';
import { roundV3, roundV4 } from './state';

const PROGRAM = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';
const SYSTEM = '11111111111111111111111111111111';
const ONE_ORE = 100_000_000_000;
const SPLIT = bs58.decode('SpLiT11111111111111111111111111111111111112');
const EXPIRY_SLOTS = 216_000;

const key = (label: string): Uint8Array => new Uint8Array(createHash('sha256').update(label).digest());
const address = (label: string): string => bs58.encode(key(label));
const BOARD = address('board');
const IDS = { programId: PROGRAM, board: BOARD };

/** An era as the round's bytes show it (see ../game/eras.ts). */
interface Era {
  readonly layout: 568 | 952;
  readonly rule: 'parimutuel' | 'returns';
  /** none: Deploy instructions only; requested: the event's mask is the one asked for; deployed: the squares taken. */
  readonly deployEvent: 'none' | 'requested' | 'deployed';
  readonly resetLength: 128 | 144;
  readonly minersField: 'num_winners' | 'total_miners';
}

/** The eras in the order mainnet went through them (a 568-byte round pays parimutuel; `returns` only in 952 bytes). */
const eraArb: fc.Arbitrary<Era> = fc.oneof(
  fc.record({ layout: fc.constant(568 as const), rule: fc.constant('parimutuel' as const), deployEvent: fc.constantFrom('none' as const, 'requested' as const, 'deployed' as const), resetLength: fc.constantFrom(128 as const, 144 as const), minersField: fc.constant('num_winners' as const) }),
  fc.record({ layout: fc.constant(952 as const), rule: fc.constantFrom('parimutuel' as const, 'returns' as const), deployEvent: fc.constant('deployed' as const), resetLength: fc.constant(144 as const), minersField: fc.constantFrom('num_winners' as const, 'total_miners' as const) }),
);

/** Lamports per square of one deploy: dust, remainders by 100 and 10 at every digit, and whales. */
const amountArb = fc.oneof(
  fc.integer({ min: 1, max: 300 }),
  fc.integer({ min: 1, max: 10_000_000_000 }),
  fc.integer({ min: 1, max: 12_000_000_000_000 }),
);
const deployArb = fc.record({ miner: fc.integer({ min: 0, max: 9 }), amount: amountArb, squares: fc.integer({ min: 1, max: (1 << 25) - 1 }) });
const roundArb = fc.record({
  id: fc.integer({ min: 1, max: 2_000_000 }),
  era: eraArb,
  deploys: fc.array(deployArb, { minLength: 0, maxLength: 24 }),
  slotHash: fc.oneof({ weight: 12, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }) }, { weight: 1, arbitrary: fc.constant(new Uint8Array(32).fill(0xff)) }),
  motherlode: fc.boolean(),
});
type PlayedRound = typeof roundArb extends fc.Arbitrary<infer T> ? T : never;

const bitCount = (mask: number): number => {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
};

/** The round as the port plays it: deploys (the program skips a square the miner holds), the reset, the account, the events. */
function play(r: PlayedRound) {
  const deployed = new Array<number>(25).fill(0);
  const count = new Array<number>(25).fill(0);
  const held = new Map<number, number>();
  const taken: number[] = [];
  for (const d of r.deploys) {
    const mask = d.squares & ~(held.get(d.miner) ?? 0);
    held.set(d.miner, (held.get(d.miner) ?? 0) | mask);
    taken.push(mask);
    for (let s = 0; s < 25; s++) {
      if ((mask & (1 << s)) === 0) continue;
      deployed[s]! += d.amount;
      count[s]! += 1;
    }
  }
  const total = deployed.reduce((a, b) => a + b, 0);
  const random = portRng(r.slotHash);
  const w = random === null ? null : winningSquare(random);
  const miners = [...held.values()].filter((m) => m !== 0).length;
  const onWinner = w === null ? 0 : deployed[w]!;
  const reward = onWinner > 0 ? ONE_ORE : 0;
  const split = random !== null && reward > 0 && (r.era.rule === 'returns' ? isSplitSquare(r.id, w!) : isSplitByRng(random));
  const topMiner = r.era.layout === 952 && reward > 0 ? (split ? SPLIT : key(`miner-${r.deploys.find((_d, i) => (taken[i]! & (1 << w!)) !== 0)!.miner}`)) : new Uint8Array(32);
  const motherlode = reward > 0 && r.motherlode ? 7 * ONE_ORE : 0;
  const totals = w === null ? { totalVaulted: 0, totalWinnings: 0 } : r.era.rule === 'returns' ? returnsReset(deployed, w) : parimutuelReset(deployed, w);
  const voided952 = w === null && r.era.layout === 952;
  const fields = {
    id: r.id,
    // A voided 952-byte round's stakes are refunded: the program zeroes `deployed` and writes the refund as total_winnings.
    deployed: voided952 ? new Array<number>(25).fill(0) : deployed,
    count,
    slotHash: r.slotHash,
    expiresAt: 1150 + EXPIRY_SLOTS,
    motherlode,
    rentPayer: key('crank'),
    topMiner,
    reward,
    totalMiners: miners,
    totalVaulted: totals.totalVaulted,
    totalWinnings: voided952 ? total : totals.totalWinnings,
    totalDeployed: total,
  };
  const account = r.era.layout === 952 ? roundV4(fields) : roundV3(fields);
  const reset = {
    roundId: r.id,
    startSlot: 1000,
    endSlot: 1150,
    winningSquare: w,
    topMiner,
    miners: w === null ? 0 : r.era.minersField === 'total_miners' ? miners : count[w]!,
    motherlode,
    totalDeployed: total,
    totalVaulted: fields.totalVaulted,
    totalWinnings: fields.totalWinnings,
    totalMinted: reward > 0 ? reward + 20_000_000_000 : 0,
    ts: 1_790_001_185,
    rng: random ?? 0n,
    deployedWinningSquare: onWinner,
  };
  return { deployed, count, total, w, random, totals, account, reset, taken, miners };
}

let signatures = 0;
/** A getTransaction (json) result with one top-level ORE instruction and its inner instructions. */
function transaction(slot: number, accounts: readonly string[], data: Uint8Array, inner: readonly { program: string; accounts: readonly string[]; data: Uint8Array }[], logs: readonly string[] = []): TransactionJson {
  const keys: string[] = [];
  const at = (k: string): number => {
    const i = keys.indexOf(k);
    return i >= 0 ? i : keys.push(k) - 1;
  };
  const top = { programIdIndex: at(PROGRAM), accounts: accounts.map(at), data: bs58.encode(data), stackHeight: null };
  const innerJson = inner.map((ix) => ({ programIdIndex: at(ix.program), accounts: ix.accounts.map(at), data: bs58.encode(ix.data), stackHeight: 2 }));
  return {
    slot,
    blockTime: 1_790_000_000 + slot,
    transaction: { signatures: [bs58.encode(key(`signature-${signatures++}`))], message: { accountKeys: keys, instructions: [top] } },
    meta: { err: null, innerInstructions: [{ index: 0, instructions: innerJson }], logMessages: [`Program ${PROGRAM} invoke [1]`, ...logs, `Program ${PROGRAM} success`], loadedAddresses: { writable: [], readonly: [] } },
  };
}

/** The round's transactions as the port's era writes them: its creation, each deploy, its reset. */
function transactions(r: PlayedRound, p: ReturnType<typeof play>): TransactionJson[] {
  const round = address(`round-${r.id}`);
  const next = address(`round-${r.id + 1}`);
  const log = (event: Uint8Array) => ({ program: PROGRAM, accounts: [BOARD], data: logData(event) });
  const txs = [transaction(990, [address('crank'), BOARD, round], new Uint8Array([INSTRUCTION.reset]), [{ program: SYSTEM, accounts: [address('crank'), round], data: createAccountData(1, r.era.layout, bs58.decode(PROGRAM)) }])];
  r.deploys.forEach((d, i) => {
    const authority = address(`miner-${d.miner}`);
    // deploy.rs's accounts: 7 until 2025-12-08 (the round 6th), 9 since (the round 7th).
    const accounts =
      r.era.deployEvent === 'none'
        ? [authority, authority, address('automation'), BOARD, address('miner-pda'), round, SYSTEM]
        : [authority, authority, address('automation'), BOARD, address('config'), address('miner-pda'), round, SYSTEM, PROGRAM];
    const event =
      r.era.deployEvent === 'none'
        ? []
        : [log(deployEvent({ authority: key(`miner-${d.miner}`), amount: d.amount, mask: r.era.deployEvent === 'requested' ? d.squares : p.taken[i]!, roundId: r.id, signer: key(`miner-${d.miner}`), strategy: null, totalSquares: bitCount(p.taken[i]!), ts: 1_790_001_000 + i }))];
    txs.push(transaction(1000 + i, accounts, deployData(d.amount, d.squares), event));
  });
  txs.push(
    transaction(1185, [address('crank'), BOARD, round, next], new Uint8Array([INSTRUCTION.reset]), [{ program: SYSTEM, accounts: [address('crank'), next], data: createAccountData(1, r.era.layout, bs58.decode(PROGRAM)) }, log(resetEvent(p.reset, r.era.resetLength))], [
      `Program log: var value: ${bs58.encode(r.slotHash)}`,
    ]),
  );
  return txs;
}

describe("the devnet's port and @gridlab/chain agree on random rounds of every era", () => {
  it('on the randomness: rng, the winning square and the prize split', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 0, max: 10_000_000 }), (slotHash, id) => {
        const random = portRng(slotHash);
        expect(chainWinningSquare(slotHash)).toBe(random === null ? null : winningSquare(random));
        if (random === null) return;
        expect(slotHashRng(slotHash)).toBe(random);
        expect(chainSplitByRng(random)).toBe(isSplitByRng(random));
        const w = winningSquare(random);
        expect(chainSplitSquare(id, w)).toBe(isSplitSquare(id, w));
      }),
      { numRuns: 2000 },
    );
  });

  it('on the settlement of a board, under both rules', () => {
    const board = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2 ** 53 / 32 })), { minLength: 25, maxLength: 25 });
    fc.assert(
      fc.property(board, fc.integer({ min: 0, max: 24 }), fc.constantFrom('parimutuel' as const, 'returns' as const), (deployed, w, rule) => {
        const port = rule === 'returns' ? returnsReset(deployed, w) : parimutuelReset(deployed, w);
        const chain = settleBy(rule, deployed, w);
        expect({ adminFee: chain.adminFee, totalVaulted: chain.totalVaulted, totalWinnings: chain.totalWinnings }).toEqual(port);
      }),
      { numRuns: 3000 },
    );
  });

  it("on every field of the round's account and events, on its rule, and on the round rebuilt from its transactions", () => {
    fc.assert(
      fc.property(roundArb, (r) => {
        const p = play(r);
        const account = decodeRound(p.account);
        expect(account.layout).toBe(r.era.layout);
        expect(account.id).toBe(r.id);
        expect(account.count).toEqual(p.count);
        expect(account.totalWinnings).toBe(p.reset.totalWinnings);
        expect(account.totalVaulted).toBe(p.reset.totalVaulted);
        if (!(p.w === null && r.era.layout === 952)) {
          expect(account.deployed).toEqual(p.deployed);
          if (p.w !== null) expect(settleBy(r.era.rule, account.deployed, p.w)).toMatchObject({ totalVaulted: p.totals.totalVaulted, totalWinnings: p.totals.totalWinnings });
        }
        // The rule a 952-byte round's own totals show (a board both rules settle alike may show either: then the earlier round's).
        const inferred = inferPayoutRule(account, r.era.rule);
        expect(inferred).toMatchObject({ ok: true });

        const logged = decodeOreEvent(resetEvent(p.reset, r.era.resetLength)) as ResetEvent;
        expect(logged).toMatchObject({
          kind: 'reset',
          roundId: r.id,
          winningSquare: p.w,
          topMiner: bs58.encode(p.reset.topMiner),
          minersField: p.reset.miners,
          motherlode: p.reset.motherlode,
          totalDeployed: p.total,
          totalVaulted: p.reset.totalVaulted,
          totalWinnings: p.reset.totalWinnings,
          totalMinted: p.reset.totalMinted,
          rng: r.era.resetLength === 144 ? p.reset.rng : null,
          deployedWinningSquare: r.era.resetLength === 144 ? p.reset.deployedWinningSquare : null,
        });
        r.deploys.forEach((d, i) => {
          expect(decodeDeployArgs(deployData(d.amount, d.squares))).toEqual({ amount: d.amount, squares: d.squares });
          const event = decodeOreEvent(deployEvent({ authority: key(`miner-${d.miner}`), amount: d.amount, mask: p.taken[i]!, roundId: r.id, signer: key('signer'), strategy: i % 2 === 0 ? null : 1, totalSquares: bitCount(p.taken[i]!), ts: 5 }));
          expect(event as DeployEvent).toEqual({ kind: 'deploy', authority: address(`miner-${d.miner}`), amount: d.amount, mask: p.taken[i]!, roundId: r.id, signer: address('signer'), strategy: i % 2 === 0 ? null : 1, totalSquares: bitCount(p.taken[i]!), ts: 5 });
        });

        const rebuilt = rebuildRound({ roundId: r.id, roundAddress: address(`round-${r.id}`), transactions: transactions(r, p).map((t) => readOreTransaction(t, IDS)), fallbackLayout: null });
        expect(rebuilt).toMatchObject({ ok: true, from: r.era.deployEvent === 'none' || r.deploys.length === 0 ? 'instructions' : 'events' });
        if (!rebuilt.ok) return;
        const context = { payoutRule: r.era.rule, productionCost: null };
        const at = new Date(0);
        // What the chain does not keep (the rent payer; v3's reward of a round rebuilt) aside, the rebuilt round is the port's.
        expect(toSettledRound(rebuilt.account, at, context)).toEqual(toSettledRound(account, at, context));
      }),
      { numRuns: 400 },
    );
  });
});
