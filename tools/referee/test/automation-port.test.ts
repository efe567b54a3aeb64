/**
 * The devnet's port of the program's Miner and Automation accounting against the real
 * executables of 2025-12 and 2026-04: the automated game of `automation-scenario.ts` is
 * replayed step by step through the port (`@gridlab/devnet/program`), which keeps its own
 * Miner and Automation state from the first step to the last and must write both accounts
 * byte for byte as the program did after every step, log the same DeployEvent for every
 * deploy (automated ones included), move the same lamports, and checkpoint and claim the
 * same SOL and ORE. The port is given only what the program takes from outside these
 * accounts: the round each deploy lands in (it tracks that round's stakes itself), the
 * settled round and the treasury before a checkpoint or claim, and the clock.
 */
import {
  AUTOMATION_V3_LENGTH,
  MINER_V3_LENGTH,
  RULES_2025_12,
  RULES_2026_01,
  automate,
  automationV3,
  checkpoint,
  claimOre,
  claimSol,
  deploy,
  deployEvent,
  generateRandomMask,
  minerV3,
  randomMaskSeed,
  readTreasuryV3,
  rng,
  topMinerSample,
  treasuryV3,
  winningSquare,
  PodReader,
  type AutomationV3,
  type MinerV3,
  type RoundDeployState,
} from '@gridlab/devnet/program';
import type { Era } from '../src';
import { A_ROUND_1, A_ROUND_2, A_WIN_1, EXECUTOR, EXECUTOR_ARGS, PAT, RITA, ROSA, WALLETS, playAutomation, type Played, type Step, type Who } from './automation-scenario';

const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex'));
const popcount = (mask: number): number => mask.toString(2).replace(/0/g, '').length;

/** A 568-byte round read in the order of `api/src/state/round.rs` at f2c552c. */
function readRound(bytes: Uint8Array) {
  const r = new PodReader(bytes);
  return {
    id: r.u64(),
    deployed: r.squares(),
    slotHash: r.raw(),
    count: r.squares(),
    expiresAt: r.u64(),
    motherlode: r.u64(),
    rentPayer: r.raw(),
    topMiner: r.raw(),
    reward: r.u64(),
    totalDeployed: r.u64(),
    totalMiners: r.u64(),
    totalVaulted: r.u64(),
    totalWinnings: r.u64(),
  };
}

/** One step as the port played it: the accounts it wrote, the event, the balance changes [wallet, miner, automation, executor, round]. */
interface PortStep {
  readonly step: Step;
  readonly miner: string | null;
  readonly automation: string | null;
  readonly treasury: string | null;
  readonly event: string | null;
  readonly deltas: readonly bigint[] | null;
  readonly rewards?: { sol: number; ore: number };
  readonly topMiner?: string;
  readonly oreSent?: number;
  /** The round after a deploy, as the port keeps it. */
  readonly round?: { deployed: number[]; count: number[]; totalDeployed: number; totalMiners: number };
}

/** Replays the played steps through the port, carrying the port's own Miner and Automation state. */
function replay(played: Played): PortStep[] {
  const rules = played.era === '2025-12' ? RULES_2025_12 : RULES_2026_01;
  const rent = (n: number) => played.rent(n);
  const miners = new Map<Who, MinerV3 | null>();
  const automations = new Map<Who, AutomationV3 | null>();
  const rounds = new Map<bigint, RoundDeployState>();
  const key = (who: Who) => WALLETS[who].publicKey.toBytes();
  const out: PortStep[] = [];
  for (const { step, before } of played.steps) {
    const wrote = (who: Who) => ({ miner: hex(miners.get(who) ? minerV3(miners.get(who)!) : null), automation: hex(automations.get(who) ? automationV3(automations.get(who)!) : null) });
    switch (step.kind) {
      case 'automate': {
        const previous = automations.get(step.who) ?? null;
        const r = automate(key(step.who), miners.get(step.who) ?? null, previous, { ...step.args, amount: Number(step.args.amount), deposit: Number(step.args.deposit), fee: Number(step.args.fee), mask: Number(step.args.mask), reload: false, executor: step.args.executor.toBytes() });
        miners.set(step.who, r.miner);
        automations.set(step.who, r.automation);
        const minerRent = r.minerOpened ? rent(MINER_V3_LENGTH) : 0n;
        const automationRent = r.automationOpened ? rent(AUTOMATION_V3_LENGTH) : 0n;
        const closedLamports = r.closed ? rent(AUTOMATION_V3_LENGTH) + BigInt(previous!.balance) : 0n;
        const paid = minerRent + BigInt(r.checkpointFee) + automationRent + BigInt(r.deposit);
        out.push({ step, ...wrote(step.who), treasury: null, event: null, deltas: [closedLamports - paid, minerRent + BigInt(r.checkpointFee), automationRent + BigInt(r.deposit) - closedLamports, 0n, 0n] });
        break;
      }
      case 'deploy': {
        let round = rounds.get(step.roundId);
        if (round === undefined) rounds.set(step.roundId, (round = { id: Number(step.roundId), deployed: new Array<number>(25).fill(0), count: new Array<number>(25).fill(0), totalDeployed: 0, totalMiners: 0 }));
        const automation = automations.get(step.who) ?? null;
        const balanceBefore = automation?.balance ?? 0;
        const signer = step.signer === 'executor' ? EXECUTOR.publicKey.toBytes() : key(step.who);
        const r = deploy(rules, { signer, authority: key(step.who), amount: Number(step.amount), mask: step.mask, miner: miners.get(step.who) ?? null, automation, round, unixTimestamp: Number(step.ts) });
        miners.set(step.who, r.miner);
        automations.set(step.who, r.automation);
        const minerRent = r.minerOpened ? rent(MINER_V3_LENGTH) : 0n;
        const closedLamports = r.automationClosed ? rent(AUTOMATION_V3_LENGTH) + BigInt(balanceBefore - r.totalAmount - r.executorFee) : 0n;
        const manual = automation === null;
        const fromSigner = BigInt(r.checkpointFee) + minerRent + (manual ? BigInt(r.totalAmount) : 0n);
        const wallet = (manual ? -fromSigner : 0n) + closedLamports;
        const executor = manual ? 0n : BigInt(r.executorFee) - fromSigner;
        out.push({
          step,
          ...wrote(step.who),
          treasury: null,
          event: hex(r.event === null ? null : deployEvent(r.event)),
          deltas: [wallet, minerRent + BigInt(r.checkpointFee), manual ? 0n : -BigInt(r.totalAmount + r.executorFee) - closedLamports, executor, BigInt(r.totalAmount)],
          round: { deployed: [...round.deployed], count: [...round.count], totalDeployed: round.totalDeployed, totalMiners: round.totalMiners },
        });
        break;
      }
      case 'checkpoint': {
        const settled = readRound(before.round!);
        const random = rng(settled.slotHash);
        const w = random === null ? null : winningSquare(random);
        const draw = random === null || w === null ? null : { winning: w, sample: topMinerSample(random, settled.deployed[w]!) };
        const treasury = readTreasuryV3(before.treasury);
        const miner = miners.get(step.who)!;
        const r = checkpoint(miner, settled, draw, treasury, { slot: Number(step.slot), boardRoundId: Number(step.roundId) + 1 });
        out.push({ step, ...wrote(step.who), treasury: hex(treasuryV3(treasury)), event: null, deltas: [BigInt(r.botFee), BigInt(r.rewardsSol - r.botFee), 0n, 0n, -BigInt(r.rewardsSol)], rewards: { sol: r.rewardsSol, ore: r.rewardsOre }, topMiner: hex(r.topMiner)! });
        break;
      }
      case 'claimSol': {
        const amount = claimSol(miners.get(step.who)!, Number(step.ts));
        out.push({ step, ...wrote(step.who), treasury: null, event: null, deltas: [BigInt(amount), -BigInt(amount), 0n, 0n, 0n] });
        break;
      }
      case 'claimOre': {
        const treasury = readTreasuryV3(before.treasury);
        const amount = claimOre(miners.get(step.who)!, treasury, Number(step.ts));
        out.push({ step, ...wrote(step.who), treasury: hex(treasuryV3(treasury)), event: null, deltas: null, oreSent: amount });
        break;
      }
      case 'reset':
        out.push({ step, miner: null, automation: null, treasury: null, event: null, deltas: null });
        break;
    }
  }
  return out;
}

const label = (s: Step, i: number) => `${i} ${s.kind}${'who' in s ? ` ${s.who}` : ''}${'roundId' in s ? ` ${s.roundId}` : ''}`;

describe.each<Era>(['2025-12', '2026-04'])('the port of automation, checkpoint and claims against the ORE program of %s', (era) => {
  let played: Played;
  let port: PortStep[];
  beforeAll(() => {
    played = playAutomation(era);
    port = replay(played);
  });
  const stepsOf = (kinds: readonly Step['kind'][]) => played.steps.map((s, i) => ({ ...s, i, port: port[i]! })).filter((s) => kinds.includes(s.step.kind));

  it('writes the Miner and Automation accounts byte for byte after every automate, deploy, checkpoint and claim', () => {
    for (const s of stepsOf(['automate', 'deploy', 'checkpoint', 'claimSol', 'claimOre'])) {
      expect({ step: label(s.step, s.i), miner: s.port.miner, automation: s.port.automation }).toEqual({ step: label(s.step, s.i), miner: hex(s.after.miner), automation: hex(s.after.automation) });
    }
  });

  it('logs the DeployEvent of every deploy, manual and automated, byte for byte', () => {
    for (const s of stepsOf(['deploy'])) {
      expect(s.outcome.events).toHaveLength(1);
      expect({ step: label(s.step, s.i), event: s.port.event }).toEqual({ step: label(s.step, s.i), event: hex(s.outcome.events[0]!) });
    }
  });

  it("leaves the round's stakes, counts, total and miners as the program does after every deploy", () => {
    for (const s of stepsOf(['deploy'])) {
      const real = readRound(s.after.round!);
      expect({ step: label(s.step, s.i), round: s.port.round }).toEqual({ step: label(s.step, s.i), round: { deployed: real.deployed, count: real.count, totalDeployed: real.totalDeployed, totalMiners: real.totalMiners } });
    }
  });

  it('moves the lamports the program moves: wallets, Miner and Automation accounts, the executor, the round', () => {
    for (const s of stepsOf(['automate', 'deploy', 'checkpoint', 'claimSol'])) {
      expect({ step: label(s.step, s.i), deltas: s.port.deltas }).toEqual({ step: label(s.step, s.i), deltas: s.deltas });
    }
  });

  it('writes the treasury byte for byte at checkpoint and ClaimORE (unclaimed ORE, the refining factor), and sends the same ORE', () => {
    for (const s of stepsOf(['checkpoint', 'claimOre'])) {
      expect({ step: label(s.step, s.i), treasury: s.port.treasury }).toEqual({ step: label(s.step, s.i), treasury: hex(s.after.treasury) });
    }
    for (const s of stepsOf(['claimOre'])) expect({ step: label(s.step, s.i), ore: BigInt(s.port.oreSent!) }).toEqual({ step: label(s.step, s.i), ore: s.oreReceived });
  });

  it('names the top miner in the round as checkpoint writes it', () => {
    for (const s of stepsOf(['checkpoint'])) expect({ step: label(s.step, s.i), topMiner: s.port.topMiner }).toEqual({ step: label(s.step, s.i), topMiner: hex(readRound(s.after.round!).topMiner) });
  });

  // What the scenario is built to reach, worked by hand from deploy.rs / checkpoint.rs / miner.rs (12274aa).
  it('reaches the cases it is built for', () => {
    const deploys = stepsOf(['deploy']);
    const event = (i: number) => {
      const view = new DataView(deploys[i]!.outcome.events[0]!.buffer, deploys[i]!.outcome.events[0]!.byteOffset);
      // DeployEvent: disc, authority, amount @40, mask @48, round_id, signer @64, strategy @96, total_squares @104, ts.
      return { amount: view.getBigUint64(40, true), mask: view.getBigUint64(48, true), strategy: view.getBigUint64(96, true), totalSquares: view.getBigUint64(104, true), signer: hex(deploys[i]!.outcome.events[0]!.slice(64, 96)) };
    };
    // pat's first deploy: the automation's amount and its three squares, not the executor's arguments; the executor signs.
    expect(event(0)).toEqual({ amount: PAT.amount, mask: era === '2025-12' ? BigInt(EXECUTOR_ARGS.mask) : PAT.mask, strategy: 1n, totalSquares: 3n, signer: hex(EXECUTOR.publicKey.toBytes()) });
    // rita: Random, 5 squares drawn from keccak(authority, round id); two paid for, then the deploy stops and her automation closes.
    const drawn = generateRandomMask(5, randomMaskSeed(WALLETS.rita.publicKey.toBytes(), Number(A_ROUND_1)));
    expect(popcount(drawn)).toBe(5);
    expect(event(2)).toMatchObject({ amount: RITA.amount, strategy: 0n, totalSquares: 2n });
    expect(deploys[2]!.after.automation).toBeNull();
    // rosa: all five of her random squares.
    expect(event(3)).toMatchObject({ amount: ROSA.amount, strategy: 0n, totalSquares: 5n });
    // pat's second deploy in the same round: every square held, nothing deployed; the fee is charged again only in 2025-12.
    expect(event(4)).toMatchObject({ totalSquares: 0n });
    expect(deploys[4]!.deltas[3]).toBe(era === '2025-12' ? PAT.fee : 0n);
    // mo's second deploy skips square 7, which he holds.
    expect(event(5)).toMatchObject({ totalSquares: 1n });
    // Round 70150: pat's balance pays two of his three squares; the deploy stops and the automation closes.
    expect(event(7)).toMatchObject({ totalSquares: 2n });
    expect(deploys[7]!.after.automation).toBeNull();
    expect(event(8)).toMatchObject({ totalSquares: 5n });
    expect(deploys[8]!.after.automation).not.toBeNull();
    // cleo's 50 lamports on the winning square: the fee's minimum of 1 applies.
    const cleo = stepsOf(['checkpoint']).find((s) => s.step.kind === 'checkpoint' && s.step.who === 'cleo')!;
    expect(cleo.port.rewards!.sol).toBeGreaterThan(0);
    // Checkpoints of round 70149 (split): pat and mo share the ORE prize; ClaimORE's fee refines mo's ORE.
    const checkpoints = stepsOf(['checkpoint']).filter((s) => s.step.kind === 'checkpoint' && s.step.roundId === A_ROUND_1);
    expect(checkpoints.every((s) => readRound(s.before.round!).deployed[A_WIN_1]! > 0)).toBe(true);
    const claims = stepsOf(['claimOre']);
    const refined = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(504, true);
    expect(refined(claims[1]!.before.miner!)).toBe(0n);
    expect(claims[1]!.port.oreSent).toBeGreaterThan(0);
    // Round 70150: pat holds the sampled lamport and is written into the round as its top miner.
    const last = stepsOf(['checkpoint']).find((s) => s.step.kind === 'checkpoint' && s.step.roundId === A_ROUND_2 && s.step.who === 'pat')!;
    expect(hex(readRound(last.after.round!).topMiner)).toBe(hex(WALLETS.pat.publicKey.toBytes()));
  });
});
