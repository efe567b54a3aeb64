/**
 * Automated mining played on the real program (no assertions here): two rounds with
 * wallets that Automate and an executor that deploys for them, a manual miner deploying
 * twice, then checkpoints and SOL and ORE claims. Every step records what the program
 * left in the accounts it touched, its events and the balances it moved, for the port to
 * be held against step by step.
 *
 * - cleo opens an automation, tops it up with other settings, and closes it (executor = default key).
 * - pat (Preferred, squares 7, 8, 13) is deployed for by the executor in both rounds, twice in
 *   round 70149 (the second finds every square held); in round 70150 his balance covers two of
 *   the three squares: the deploy stops after square 8 and the automation closes.
 * - rita (Random, `mask & 0xFF` = 5 squares) has SOL for two squares: her one deploy stops
 *   after two and closes her automation.
 * - rosa (Random, 5 squares) has SOL for both rounds; her automation stays open.
 * - mo deploys by hand, twice in round 70149 (his second deploy's square 7 is skipped); cleo
 *   deploys 50 lamports by hand once her automation is closed.
 * Round 70149: square 7 wins, the ORE prize split. Round 70150: square 8, pat the top miner.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateRandomMask, isSplitByRng, randomMaskSeed, reverseBits } from '@gridlab/devnet/program';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  FIXTURES,
  Game,
  INTERMISSION_SLOTS,
  Referee,
  TREASURY,
  associatedTokenAddress,
  automationAddress,
  decodeVar,
  fallbackSlotHash,
  grindSeedChain,
  minerAddress,
  ORE_MINT,
  roundAddress,
  type Era,
  type TxOutcome,
} from '../src';

export const A_ROUND_1 = 70149n;
export const A_ROUND_2 = 70150n;
export const A_WIN_1 = 7;
const A_WIN_2 = 8;
const START_1 = 383_600_000n;
const END_1 = START_1 + 150n;
const START_2 = END_1 + 40n;
const END_2 = START_2 + 150n;

const wallet = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n));
export const EXECUTOR = wallet(21);
/**
 * rosa's key is the one among wallet(26..255) whose Random squares of round 70149 are not
 * the same if generate_random_mask's `<` were a `<=`: byte 18 of her keccak sits on the bound.
 */
export const WALLETS = { pat: wallet(22), rita: wallet(23), mo: wallet(24), cleo: wallet(25), rosa: wallet(217) };
export type Who = keyof typeof WALLETS;

export const PAT = { amount: 100_003n, deposit: 516_252n, fee: 5_001n, mask: (1n << 7n) | (1n << 8n) | (1n << 13n), strategy: 1 };
/** Three squares' worth less a lamport of the fee: the fee, counted in the check, stops her after two. */
export const RITA = { amount: 77_777n, deposit: 3n * 77_777n + 3_002n, fee: 3_003n, mask: 0x0305n, strategy: 0 };
/** Random, 5 squares, SOL for both rounds and more: her automation stays open. */
export const ROSA = { amount: 55_555n, deposit: 2n * (5n * 55_555n + 2_000n) + 100_000n, fee: 2_000n, mask: 5n, strategy: 0 };
/** What the executor puts in its deploy instructions (the program ignores both for these strategies). */
export const EXECUTOR_ARGS = { amount: 1n, mask: 0b111 };

/** The accounts one step may touch, as the program left them (null: no such account). */
interface Snapshot {
  readonly miner: Uint8Array | null;
  readonly automation: Uint8Array | null;
  readonly treasury: Uint8Array;
  readonly round: Uint8Array | null;
}

export type Step =
  | { readonly kind: 'automate'; readonly who: Who; readonly args: { amount: bigint; deposit: bigint; fee: bigint; mask: bigint; strategy: number; executor: PublicKey }; readonly ts: bigint }
  | { readonly kind: 'deploy'; readonly who: Who; readonly signer: 'executor' | 'self'; readonly roundId: bigint; readonly amount: bigint; readonly mask: number; readonly ts: bigint }
  | { readonly kind: 'reset'; readonly roundId: bigint; readonly ts: bigint }
  | { readonly kind: 'checkpoint'; readonly who: Who; readonly roundId: bigint; readonly ts: bigint; readonly slot: bigint }
  | { readonly kind: 'claimSol'; readonly who: Who; readonly ts: bigint }
  | { readonly kind: 'claimOre'; readonly who: Who; readonly ts: bigint };

export interface Played {
  readonly era: Era;
  /** Each step with the accounts after it, its events, and the change of the watched balances: [wallet, miner, automation, executor, round]. */
  readonly steps: readonly { readonly step: Step; readonly before: Snapshot; readonly after: Snapshot; readonly outcome: TxOutcome; readonly deltas: readonly bigint[]; readonly oreReceived: bigint }[];
  readonly rent: (length: number) => bigint;
}

function tokenAmount(referee: Referee, owner: PublicKey): bigint {
  const data = referee.dataOrNull(associatedTokenAddress(owner, ORE_MINT));
  return data === null ? 0n : new DataView(data.buffer, data.byteOffset).getBigUint64(64, true);
}

/** Plays both rounds on the executable of `era`. */
export function playAutomation(era: Era): Played {
  const fixtureVar = decodeVar(new Uint8Array(readFileSync(join(FIXTURES, 'program-2025-12/entropy_var.account.bin'))));
  // Who is on square 8 in round 70150: pat (first), mo, and rosa if her random squares take it.
  const rosaSquares = generateRandomMask(Number(ROSA.mask & 0xffn), randomMaskSeed(WALLETS.rosa.publicKey.toBytes(), Number(A_ROUND_2)));
  const onSquare8 = PAT.amount + 400_000n + ((rosaSquares >> 8) & 1 ? ROSA.amount : 0n);
  const chain = grindSeedChain(
    [
      { slotHash: fallbackSlotHash(END_1), samples: fixtureVar.samples - 1n, square: A_WIN_1, accept: (rng) => isSplitByRng(rng) },
      // Not split, and the sampled lamport is pat's (his 100_003 came first on square 8).
      { slotHash: fallbackSlotHash(END_2), samples: fixtureVar.samples - 2n, square: A_WIN_2, accept: (rng) => !isSplitByRng(rng) && reverseBits(rng) % onSquare8 < PAT.amount },
    ],
    'gridlab referee automation',
  );
  const referee = new Referee({ era, roundId: A_ROUND_1, slot: START_1, commitment: chain.commitment });
  referee.fund(EXECUTOR.publicKey, 1_000_000_000n);
  for (const w of Object.values(WALLETS)) referee.fund(w.publicKey, 10_000_000_000n);
  const game = new Game(referee);
  const steps: Played['steps'][number][] = [];
  let currentRound: bigint = A_ROUND_1;

  const snapshot = (who: Who | null, roundId: bigint | null): Snapshot => ({
    miner: who === null ? null : referee.dataOrNull(minerAddress(WALLETS[who].publicKey)),
    automation: who === null ? null : referee.dataOrNull(automationAddress(WALLETS[who].publicKey)),
    treasury: referee.data(TREASURY),
    round: roundId === null ? null : referee.dataOrNull(roundAddress(roundId)),
  });
  const run = (step: Step, roundId: bigint | null, send: () => TxOutcome) => {
    const who = 'who' in step ? step.who : null;
    const owner = who === null ? referee.feePayer.publicKey : WALLETS[who].publicKey;
    const before = snapshot(who, roundId);
    const ore = tokenAmount(referee, owner);
    const moves = game.watch([owner, minerAddress(owner), automationAddress(owner), EXECUTOR.publicKey, roundAddress(roundId ?? currentRound)], send);
    steps.push({ step, before, after: snapshot(who, roundId), outcome: moves.outcome, deltas: moves.deltas, oreReceived: tokenAmount(referee, owner) - ore });
  };
  const ts = () => referee.unixTimestamp;

  const automate = (who: Who, args: { amount: bigint; deposit: bigint; fee: bigint; mask: bigint; strategy: number }, executor = EXECUTOR.publicKey) => {
    const full = { ...args, executor };
    run({ kind: 'automate', who, args: full, ts: ts() }, null, () => game.automate(WALLETS[who], { ...full, reload: false }).outcome);
  };
  const deploy = (who: Who, signer: 'executor' | 'self', amount: bigint, mask: number) => {
    const roundId = currentRound;
    run({ kind: 'deploy', who, signer, roundId, amount, mask, ts: ts() }, roundId, () =>
      game.deployFor(signer === 'executor' ? EXECUTOR : WALLETS[who], WALLETS[who].publicKey, roundId, amount, mask),
    );
  };
  const settle = (seed: Uint8Array) => {
    const roundId = currentRound;
    let outcome: TxOutcome | null = null;
    run({ kind: 'reset', roundId, ts: 0n }, roundId, () => (outcome = game.settle(seed, WALLETS.pat.publicKey).outcome));
    const last = steps[steps.length - 1]!;
    steps[steps.length - 1] = { ...last, step: { kind: 'reset', roundId, ts: ts() }, outcome: outcome! };
  };
  const checkpoint = (who: Who, roundId: bigint) => {
    run({ kind: 'checkpoint', who, roundId, ts: ts(), slot: referee.slot }, roundId, () => game.checkpoint(WALLETS[who], roundId).outcome);
  };

  // cleo: open, update, close.
  automate('cleo', { amount: 250_000n, deposit: 1_000_000n, fee: 7_000n, mask: 1n << 3n, strategy: 1 });
  automate('cleo', { amount: 90_000n, deposit: 50_000n, fee: 6_000n, mask: 4n, strategy: 0 });
  automate('cleo', { amount: 0n, deposit: 0n, fee: 0n, mask: 0n, strategy: 0 }, PublicKey.default);

  automate('pat', PAT);
  automate('rita', RITA);
  automate('rosa', ROSA);

  deploy('pat', 'executor', EXECUTOR_ARGS.amount, EXECUTOR_ARGS.mask);
  deploy('mo', 'self', 1_000_001n, (1 << 7) | (1 << 20));
  deploy('rita', 'executor', EXECUTOR_ARGS.amount, EXECUTOR_ARGS.mask);
  deploy('rosa', 'executor', EXECUTOR_ARGS.amount, EXECUTOR_ARGS.mask);
  referee.setSlot(START_1 + 90n);
  deploy('pat', 'executor', EXECUTOR_ARGS.amount, EXECUTOR_ARGS.mask);
  deploy('mo', 'self', 500_000n, (1 << 7) | (1 << 21));
  // cleo, her automation closed, deploys by hand: 50 lamports, whose 1% fee is the minimum of 1.
  deploy('cleo', 'self', 50n, 1 << 7);
  settle(chain.seeds[0]!);

  referee.setSlot(END_1 + INTERMISSION_SLOTS + 2n);
  for (const who of ['pat', 'rita', 'rosa', 'mo', 'cleo'] as const) checkpoint(who, A_ROUND_1);
  for (const who of ['pat', 'rita', 'mo'] as const) run({ kind: 'claimSol', who, ts: ts() }, null, () => game.claimSol(WALLETS[who]).outcome);
  // pat claims first: his refining fee is shared among everyone still holding unclaimed ORE, mo among them.
  for (const who of ['pat', 'mo'] as const) run({ kind: 'claimOre', who, ts: ts() }, null, () => game.claimOre(WALLETS[who]));

  currentRound = A_ROUND_2;
  referee.setSlot(START_2);
  deploy('pat', 'executor', EXECUTOR_ARGS.amount, EXECUTOR_ARGS.mask);
  deploy('rosa', 'executor', EXECUTOR_ARGS.amount, EXECUTOR_ARGS.mask);
  deploy('mo', 'self', 400_000n, (1 << 8) | (1 << 9));
  settle(chain.seeds[1]!);
  referee.setSlot(END_2 + INTERMISSION_SLOTS + 2n);
  for (const who of ['pat', 'mo'] as const) checkpoint(who, A_ROUND_2);
  run({ kind: 'claimSol', who: 'pat', ts: ts() }, null, () => game.claimSol(WALLETS.pat).outcome);
  return { era, steps, rent: (length) => referee.rent(length) };
}
