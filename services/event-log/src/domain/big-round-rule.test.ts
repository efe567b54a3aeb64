/**
 * The big_round rule lives once (@gridlab/strategy's bigRoundThreshold). The
 * event log's big_round events and the Lab's big-round flags (what the
 * rounds_since_big_round filter reads) pick the same rounds under any rule, so changing
 * EVENT_BIG_ROUND_* changes both alike.
 */
import { History, bigRoundFlags, bigRoundRuleTag, SPEC_BIG_ROUND_RULE, type BigRoundRule } from '@gridlab/strategy';
import { createDeriver, type DerivableRound } from './derive';

const SOL = 1_000_000_000;

/** 3,000 rounds: deployment drifting with spikes, some voided, some with nothing deployed (split evenly over the squares). */
function rounds(): DerivableRound[] {
  let seed = 7;
  const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: 3000 }, (_, i) => {
    const id = i + 1;
    const voided = next() < 0.02;
    const spike = next() < 0.05 ? 1.5 + next() * 3 : 1;
    const deployed = i >= 1000 && i < 1040 ? 0 : 25 * Math.round(((5 + 3 * Math.sin(i / 200) + next()) * spike * SOL) / 25);
    return { id, winningSquare: voided ? null : id % 25, totalDeployed: deployed, totalMiners: 100, motherlode: 0, settledAt: new Date(Date.UTC(2026, 0, 1) + id * 60_000).toISOString() };
  });
}

function eventLogBigRounds(rule: BigRoundRule, input: readonly DerivableRound[]): number[] {
  const deriver = createDeriver({ bigRoundMultiplier: rule.multiplier, bigRoundWindow: rule.window, bigRoundMinHistory: rule.minHistory });
  return input.flatMap((r) => deriver.onRound(r)).flatMap((e) => (e.body.kind === 'big_round' ? [e.body.roundId] : []));
}

function labBigRounds(rule: BigRoundRule, input: readonly DerivableRound[]): number[] {
  const history = History.from(
    input.map((r) => ({ id: r.id, winningSquare: r.winningSquare, totalDeployed: r.totalDeployed, totalWinnings: 0, deployed: new Array<number>(25).fill(r.totalDeployed / 25), count: new Array<number>(25).fill(4) })),
  );
  history.bigRoundRule = rule;
  const flags = bigRoundFlags(history);
  return input.flatMap((r, i) => (flags[i] === 1 ? [r.id] : []));
}

describe('one big_round rule for the event log and the Lab', () => {
  const input = rounds();
  const other: BigRoundRule = { multiplier: 1.3, window: 50, minHistory: 20 };

  it.each([
    ['SPEC 6', SPEC_BIG_ROUND_RULE],
    ['EVENT_BIG_ROUND_* = 1.3, 50, 20', other],
  ])('picks the same rounds under %s', (_, rule) => {
    const events = eventLogBigRounds(rule, input);
    expect(events.length).toBeGreaterThan(10);
    expect(labBigRounds(rule, input)).toEqual(events);
  });

  it('a changed setting changes both, and names its cached results apart', () => {
    expect(eventLogBigRounds(other, input)).not.toEqual(eventLogBigRounds(SPEC_BIG_ROUND_RULE, input));
    expect(bigRoundRuleTag(SPEC_BIG_ROUND_RULE)).toBe('');
    expect(bigRoundRuleTag(other)).toBe('big-round-1.3-50-20:');
  });
});
