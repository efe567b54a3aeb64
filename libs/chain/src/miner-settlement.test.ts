/**
 * Every miner of a round, held against fixtures/golden/miners.json: rounds of every era
 * whose deploys and checkpoints were worked from the program's own deploy.rs and
 * checkpoint.rs (miners.py, which imports nothing of Gridlab), row by row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQUARES } from './ore-layout';
import { holdsStake, indexDeploys, networkFees, playDeploys, settleMiners, type RoundDraw } from './miner-settlement';

interface GoldenMiner {
  readonly authority: string;
  readonly deployed: readonly string[];
  readonly cumulative: readonly string[];
  readonly solBack: string;
  readonly oreTopMiner: string;
  readonly oreSplit: string;
  readonly oreMotherlode: string;
  readonly topMiner: boolean;
  readonly adminFee: string;
  readonly protocolFee: string;
}

interface GoldenRound {
  readonly name: string;
  readonly era: 'v3' | 'parimutuel952' | 'returns';
  readonly winningSquare: number | null;
  readonly topMinerSample: string | null;
  readonly split: boolean;
  readonly topMinerReward: string;
  readonly motherlode: string;
  readonly deploys: readonly { readonly authority: string; readonly amount: string; readonly squares: readonly number[] }[];
  readonly expected: { readonly deployed: readonly string[]; readonly count: readonly number[]; readonly miners: readonly GoldenMiner[] };
}

const golden = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/golden/miners.json'), 'utf8')) as { readonly rounds: readonly GoldenRound[] };
const n = (decimal: string): number => {
  const value = Number(decimal);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${decimal} is past 2^53`);
  return value;
};

describe('every miner of a round, as the program deploys and checkpoints it (golden/miners.json)', () => {
  it('covers every era', () => {
    expect(new Set(golden.rounds.map((r) => r.era))).toEqual(new Set(['v3', 'parimutuel952', 'returns']));
  });

  it.each(golden.rounds.map((r) => [r.name, r] as const))('%s', (_name, round) => {
    const index = indexDeploys(round.deploys.map((d) => ({ authority: d.authority, signature: '' })), []);
    const played = playDeploys(
      round.deploys.map((d) => ({ amount: n(d.amount), squares: d.squares.reduce((mask, s) => mask | (1 << s), 0) })),
      index,
    );
    expect(played.deployed).toEqual(round.expected.deployed.map(n));
    expect(played.count).toEqual(round.expected.count);
    // The miners are the wallets holding a stake, in the order of their first deploy.
    const miners = index.wallets.addresses.flatMap((authority, w) => (holdsStake(played, w) ? [{ authority, w }] : []));
    const cells = (a: Float64Array, w: number) => Array.from(a.subarray(w * SQUARES, (w + 1) * SQUARES));
    expect(miners.map(({ authority, w }) => ({ authority, deployed: cells(played.stake, w), cumulative: cells(played.cumulative, w) }))).toEqual(
      round.expected.miners.map((m) => ({ authority: m.authority, deployed: m.deployed.map(n), cumulative: m.cumulative.map(n) })),
    );
    const draw: RoundDraw = {
      rule: round.era === 'returns' ? 'returns' : 'parimutuel',
      winningSquare: round.winningSquare,
      topMinerSample: round.topMinerSample === null ? null : n(round.topMinerSample),
      split: round.split,
      topMinerReward: n(round.topMinerReward),
      motherlode: n(round.motherlode),
    };
    const outcomes = settleMiners(draw, played);
    expect(miners.map(({ authority, w }) => ({ authority, ...outcomes.of(w) }))).toEqual(
      round.expected.miners.map((m) => ({
        authority: m.authority,
        solBack: n(m.solBack),
        oreTopMiner: n(m.oreTopMiner),
        oreSplit: n(m.oreSplit),
        oreMotherlode: n(m.oreMotherlode),
        topMiner: m.topMiner,
        adminFee: n(m.adminFee),
        protocolFee: n(m.protocolFee),
      })),
    );
  });
});

describe('what each wallet paid the network for its deploys', () => {
  const tx = (signature: string, feePayer: string, fee: number | null, signatures = 1) => ({ signature, feePayer, fee, signatures });
  /** Each wallet's fees by address; null where not known. */
  const feesOf = (deploys: readonly { authority: string; signature: string }[], transactions: readonly ReturnType<typeof tx>[]) => {
    const index = indexDeploys(deploys, transactions);
    const fees = networkFees(deploys, index, transactions);
    return new Map(index.wallets.addresses.map((a, w) => [a, Number.isNaN(fees.base[w]) ? null : { base: fees.base[w], priority: fees.priority[w] }]));
  };

  it('counts each transaction a wallet paid once, splitting the base fee (5,000 a signature) from the priority it bid', () => {
    const fees = feesOf(
      [
        { authority: 'A', signature: 't1' },
        { authority: 'A', signature: 't1' }, // a second deploy in the same transaction
        { authority: 'A', signature: 't2' },
        { authority: 'B', signature: 't3' },
      ],
      [tx('t1', 'A', 5000 + 1234), tx('t2', 'A', 10_000, 2), tx('t3', 'B', 5000)],
    );
    expect(fees).toEqual(
      new Map([
        ['A', { base: 5000 + 10_000, priority: 1234 }],
        ['B', { base: 5000, priority: 0 }],
      ]),
    );
  });

  it('charges an executor\'s transaction to nobody it deployed for, and says when a fee is not known', () => {
    const fees = feesOf(
      [
        { authority: 'A', signature: 'batch' },
        { authority: 'B', signature: 'batch' },
        { authority: 'C', signature: 'own' },
      ],
      [tx('batch', 'executor', 90_000), tx('own', 'C', null)],
    );
    expect(fees).toEqual(
      new Map([
        ['A', { base: 0, priority: 0 }],
        ['B', { base: 0, priority: 0 }],
        ['C', null],
      ]),
    );
  });

  it('finds each deploy\'s transaction when they are not listed in the order they ran, and charges none it cannot find', () => {
    const fees = feesOf(
      [
        { authority: 'A', signature: 't2' },
        { authority: 'B', signature: 't1' },
        { authority: 'C', signature: 'missing' },
        { authority: 'A', signature: 't2' },
      ],
      [tx('t1', 'B', 6000), tx('t2', 'A', 5000)],
    );
    expect(fees).toEqual(
      new Map([
        ['A', { base: 5000, priority: 0 }],
        ['B', { base: 5000, priority: 1000 }],
        ['C', { base: 0, priority: 0 }],
      ]),
    );
  });
});
