import { deployAt } from './derive-round';
import { Game, eraStarts } from './game';
import { Population, expectedPlays, populationOf } from './population';

const SEED = 7;
const ROUNDS = 2000;
const ROUND_SLOTS = 150;
const ALL_SQUARES = (1 << 25) - 1;
/** A round above this holds a whale bet (a whale putting down several ordinary rounds at once). */
const ORDINARY_ROUND_LAMPORTS = 75e9;

const popcount = (mask: number): number => {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
};
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Wallet {
  deploys: number;
  rounds: number;
  lamports: number;
  /** Lamports in rounds without a whale bet. */
  ordinary: number;
  wholeBoard: number;
}

/** The crowd of 2,000 rounds of a default devnet (400 deploys a round, 15 % automated), as the deploys landed. */
function crowd() {
  const wallets = new Map<number, Wallet>();
  const totals: number[] = [];
  let deploys = 0;
  let seconds = 0;
  const automated = { deploys: 0, lastSlots: 0 };
  const manual = { deploys: 0, position: 0 };
  const config = { seed: SEED, roundSlots: ROUND_SLOTS, intermissionSlots: 35, voidedRoundRate: 0, eras: eraStarts('returns', 1, 0), automatedShare: 0.15 };
  new Game(config, ROUNDS, 10_000_000, ({ round }) => {
    const seen = new Set<number>();
    const stakes: [Wallet, number][] = [];
    let total = 0;
    for (let i = 0; i < round.deploys.length; i++) {
      const d = deployAt(round.deploys, i);
      const lamports = d.amount * popcount(d.deployed);
      let w = wallets.get(d.miner);
      if (w === undefined) wallets.set(d.miner, (w = { deploys: 0, rounds: 0, lamports: 0, ordinary: 0, wholeBoard: 0 }));
      w.deploys++;
      w.lamports += lamports;
      stakes.push([w, lamports]);
      if (d.requested === ALL_SQUARES) w.wholeBoard++;
      if (seen.has(d.miner)) seconds++;
      else w.rounds++;
      seen.add(d.miner);
      total += lamports;
      deploys++;
      if (d.automated) {
        automated.deploys++;
        // Slots left as the indexer counts them: the round's end slot minus the deploy's.
        if (round.endSlot - d.slot <= 2) automated.lastSlots++;
      } else {
        manual.deploys++;
        manual.position += (d.slot - round.startSlot) / ROUND_SLOTS;
      }
    }
    totals.push(total / 1e9);
    if (total <= ORDINARY_ROUND_LAMPORTS) for (const [w, lamports] of stakes) w.ordinary += lamports;
  });
  return { wallets: [...wallets.values()], totals, deploys, seconds, automated, manual };
}

describe('the devnet population', () => {
  let c: ReturnType<typeof crowd>;
  let top: Wallet[];
  let allLamports: number;
  let perDeploy: number[];
  beforeAll(() => {
    c = crowd();
    top = [...c.wallets].sort((a, b) => b.lamports - a.lamports).slice(0, Math.ceil(c.wallets.length / 100));
    allLamports = c.wallets.reduce((a, w) => a + w.lamports, 0);
    perDeploy = c.wallets.map((w) => w.lamports / w.deploys);
  });

  it('has mainnet’s ~400 deploys a round, with round totals around 15 SOL and occasional whale rounds', () => {
    expect(c.deploys / ROUNDS).toBeGreaterThan(380);
    expect(c.deploys / ROUNDS).toBeLessThan(420);
    const m = median(c.totals);
    expect(m).toBeGreaterThan(10);
    expect(m).toBeLessThan(22);
    expect(c.totals.filter((t) => t > 5 * m).length).toBeGreaterThan(ROUNDS * 0.01);
  });

  it('puts most of the SOL in the hands of the top 1 % of wallets, who also play far more than their share', () => {
    const share = top.reduce((a, w) => a + w.lamports, 0) / allLamports;
    const deployShare = top.reduce((a, w) => a + w.deploys, 0) / c.deploys;
    expect(share).toBeGreaterThan(0.4);
    expect(deployShare).toBeGreaterThan(0.05);
    // Not only more deploys but larger ones, whale bets aside.
    const ordinary = [...c.wallets].sort((a, b) => b.ordinary - a.ordinary).slice(0, top.length);
    const ordinaryShare = ordinary.reduce((a, w) => a + w.ordinary, 0) / c.wallets.reduce((a, w) => a + w.ordinary, 0);
    expect(ordinaryShare).toBeGreaterThan(3 * (ordinary.reduce((a, w) => a + w.deploys, 0) / c.deploys));
  });

  it('has a few whales staking 10-100x the median wallet, mostly on the whole board, and many small wallets', () => {
    const mid = median(perDeploy);
    const mean = allLamports / c.deploys;
    // The median wallet's stake per deploy is far below the mean deploy's: the SOL is in the tail.
    expect(mid).toBeLessThan(mean / 3);
    const whales = c.wallets.filter((w) => w.lamports / w.deploys >= 10 * mid);
    expect(whales.length).toBeGreaterThan(c.wallets.length * 0.001);
    expect(whales.length).toBeLessThan(c.wallets.length * 0.03);
    // The seed's whales: 10-100x the median wallet's stake.
    const p = populationOf(SEED, 400, 0.15);
    const typical = median(Array.from(p.stake));
    const whaleStakes = Array.from(p.stake).filter((_, i) => p.whale[i] === 1);
    expect(Math.min(...whaleStakes)).toBeGreaterThanOrEqual(9 * typical);
    expect(Math.max(...whaleStakes)).toBeLessThanOrEqual(110 * typical);
    const wholeBoard = whales.reduce((a, w) => a + w.wholeBoard, 0) / whales.reduce((a, w) => a + w.deploys, 0);
    expect(wholeBoard).toBeGreaterThan(0.5);
    // Most wallets' stakes are within a few times the smallest wallets'.
    const smallest = [...perDeploy].sort((a, b) => a - b)[Math.floor(perDeploy.length / 20)]!;
    expect(mid).toBeLessThan(4 * smallest);
  });

  it('has wallets come back: a few play most rounds, most play rarely', () => {
    expect(c.wallets.length).toBeLessThan(c.deploys / 50);
    // Were every wallet as active as the next, each would play 400 / 10,000 = 4 % of the rounds.
    expect(median(c.wallets.map((w) => w.rounds))).toBeLessThan(ROUNDS * 0.02);
    const regulars = c.wallets.filter((w) => w.rounds > ROUNDS / 2).length;
    expect(regulars).toBeGreaterThan(c.wallets.length * 0.005);
    expect(regulars).toBeLessThan(c.wallets.length * 0.05);
  });

  it('has a few percent of a round’s deploys be a wallet’s second deploy in it', () => {
    expect(c.seconds / c.deploys).toBeGreaterThan(0.02);
    expect(c.seconds / c.deploys).toBeLessThan(0.08);
  });

  it('has automated wallets deploy in the last slots, and manual ones spread over the round, more towards its end', () => {
    expect(c.automated.deploys / c.deploys).toBeGreaterThan(0.1);
    expect(c.automated.lastSlots / c.automated.deploys).toBeGreaterThanOrEqual(0.9);
    const position = c.manual.position / c.manual.deploys;
    expect(position).toBeGreaterThan(0.55);
    expect(position).toBeLessThan(0.8);
  });

  it('is calibrated to its deploys a round for any pool size, and the same for the same seed', () => {
    for (const mean of [8, 40, 400, 4000]) {
      const p = populationOf(3, mean, 0.15);
      let expected = p.automatedPerRound;
      const automated = new Set(p.automated.map((a) => a.miner));
      for (let i = 0; i < p.size; i++) if (!automated.has(i)) expected += expectedPlays(p.rate[i]!) * (1 + p.topUp[i]!);
      expect(Math.abs(expected - mean) / mean).toBeLessThan(0.05);
    }
    const again = new Population(3, 400, 0.15);
    expect(again.stake).toEqual(populationOf(3, 400, 0.15).stake);
    expect(again.automated).toEqual(populationOf(3, 400, 0.15).automated);
    expect(new Population(4, 400, 0.15).stake).not.toEqual(again.stake);
  });
});
