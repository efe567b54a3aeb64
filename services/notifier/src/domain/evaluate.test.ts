import { boardEv } from '@gridlab/chain';
import { ORE_BASE_UNITS, type LiveSnapshot, type LogEvent, type MinerDeployed, type MinerRound, type Round } from '@gridlab/contracts';
import type { SquareEvAlert } from './alerts';
import { createEvaluator, type ForwardDecision } from './evaluate';
import type { Rule, RuleInput } from './rules';

jest.mock('@gridlab/chain', () => {
  const actual = jest.requireActual<typeof import('@gridlab/chain')>('@gridlab/chain');
  return { ...actual, boardEv: jest.fn(actual.boardEv) };
});

const SOL = 1_000_000_000;
const CREATED = '2026-05-01T00:00:00.000Z';
const AFTER = '2026-05-01T00:01:00.000Z';
const BEFORE = '2026-04-30T23:59:00.000Z';
const ALICE = 'So11111111111111111111111111111111111111112';
const BOB = '11111111111111111111111111111111';
const common = { name: null, target: null, enabled: true } as const;

/** A rule's own fields, the common ones left to their defaults. */
type Spec = RuleInput extends infer R ? (R extends RuleInput ? Omit<R, 'name' | 'target' | 'enabled'> : never) : never;

let nextId = 0;
function rule(input: Spec, id = `r${++nextId}`): Rule {
  return { ...common, ...input, id, createdAt: CREATED };
}

/** The live round: square s holds (s + 1) SOL, so square 0 is the cheapest ORE. */
function live(over: Partial<LiveSnapshot> = {}, pool: number | null = 50 * ORE_BASE_UNITS): LiveSnapshot {
  const deployed = Array.from({ length: 25 }, (_, s) => (s + 1) * SOL);
  return {
    roundId: 100,
    status: 'active',
    deployed,
    count: deployed.map(() => 3),
    totalDeployed: deployed.reduce((a, b) => a + b, 0),
    totalMiners: 40,
    secondsLeft: 10,
    slot: 1_000,
    startSlot: 850,
    endSlot: 1_010,
    prevRound: null,
    updatedAt: AFTER,
    game: {
      payoutRule: 'returns',
      oreReward: ORE_BASE_UNITS,
      motherlodePool: pool,
      productionCost: 2 * SOL,
      splitSquares: null,
      evStakeLamports: SOL / 10,
      evOrePriceLamports: 2 * SOL,
      evPerSol: deployed.map(() => 0),
    },
    ...over,
  };
}

/** EV per SOL of each square of `live()` for a stake and price, as the chain lib figures it. */
function evs(stake: number, price: number): number[] {
  const s = live();
  const g = s.game!;
  return boardEv({ deployed: s.deployed, payoutRule: g.payoutRule, oreReward: g.oreReward, motherlodePool: g.motherlodePool ?? 0, splitSquares: g.splitSquares }, stake, price).map((e) => e.evPerSol);
}

function settled(id: number, winningSquare: number | null, over: Partial<Round> = {}): Round {
  return {
    id,
    deployed: Array(25).fill(SOL),
    count: Array(25).fill(1),
    winningSquare,
    totalDeployed: 25 * SOL,
    totalWinnings: 0,
    totalVaulted: 0,
    totalMiners: 25,
    motherlode: 0,
    topMinerReward: ORE_BASE_UNITS,
    slotHash: 'ab'.repeat(32),
    settledAt: AFTER,
    payoutRule: 'returns',
    oreReward: ORE_BASE_UNITS,
    topMiner: null,
    split: false,
    productionCost: 2 * SOL,
    source: 'account',
    motherlodePool: null,
    ...over,
  };
}

function deploy(address: string, roundId: number, squares: number[] | null, amount: number | null = SOL / 10): MinerDeployed {
  return { roundId, address, signer: address, signature: 'sig', slot: 900, squares, amount, automated: false, automationStrategy: null };
}

function row(address: string, roundId: number, over: Partial<MinerRound> = {}): MinerRound {
  return {
    roundId,
    address,
    settledAt: AFTER,
    payoutRule: 'returns',
    squares: [3],
    amounts: [SOL],
    deployed: SOL,
    deploys: 1,
    signer: address,
    automated: false,
    automationStrategy: null,
    slotsLeft: 10,
    slotsLeftLast: 10,
    solBack: 0,
    oreTopMiner: 0,
    oreSplit: 0,
    oreMotherlode: 0,
    topMiner: false,
    heldWinningSquare: false,
    adminFee: 0,
    protocolFee: 0,
    networkFee: 5000,
    priorityFee: 0,
    executorFee: 0,
    checkpointDeposit: 0,
    net: -SOL,
    ...over,
  };
}

const keys = (firings: readonly { dedupKey: string }[]): string[] => firings.map((f) => f.dedupKey);

describe('square_ev', () => {
  const stake = SOL / 10;
  const board = evs(stake, 2 * SOL);
  // A bar that exactly the best two squares meet.
  const sorted = [...board].sort((a, b) => b - a);
  const bar = sorted[1]!;

  it('fires once per round with the squares that meet the bar, best first', () => {
    const r = rule({ kind: 'square_ev', minEvPerSol: bar, stakeLamports: stake, orePriceLamports: null, fromSlotsBeforeEnd: 20, squares: null });
    const e = createEvaluator([r]);
    const [firing, ...rest] = e.onLive(live());
    expect(rest).toEqual([]);
    const payload = firing!.payload as SquareEvAlert;
    expect(firing!.dedupKey).toBe(`${r.id}:square_ev:100`);
    expect(payload).toMatchObject({ type: 'alert.square_ev', ruleId: r.id, roundId: 100, slot: 1000, slotsLeft: 10, stakeLamports: stake, orePriceLamports: 2 * SOL, orePriceSource: 'productionCost' });
    expect(payload.squares.map((h) => h.square)).toEqual([0, 1]);
    expect(payload.squares[0]!.evPerSol).toBeCloseTo(board[0]!, 6);
    expect(payload.squares[0]!.deployedLamports).toBe(SOL);
    expect(e.onLive(live({ slot: 1_005 }))).toEqual([]);
    expect(keys(e.onLive(live({ roundId: 101 })))).toEqual([`${r.id}:square_ev:101`]);
  });

  it('waits for the window before the end, and skips ended, waiting and game-less snapshots', () => {
    const r = rule({ kind: 'square_ev', minEvPerSol: -1, stakeLamports: stake, orePriceLamports: null, fromSlotsBeforeEnd: 5, squares: null });
    const e = createEvaluator([r]);
    expect(e.onLive(live({ slot: 1_004 }))).toEqual([]);
    expect(e.onLive(live({ slot: 1_011 }))).toEqual([]);
    expect(e.onLive(live({ slot: 1_006, status: 'waiting' }))).toEqual([]);
    expect(e.onLive(live({ slot: 1_006, endSlot: null }))).toEqual([]);
    expect(e.onLive({ ...live({ slot: 1_006 }), game: undefined } as unknown as LiveSnapshot)).toEqual([]);
    expect(keys(e.onLive(live({ slot: 1_005 })))).toEqual([`${r.id}:square_ev:100`]);
  });

  it("considers only the rule's squares, at the rule's price", () => {
    const price = 50 * SOL;
    const own = evs(stake, price);
    const r = rule({ kind: 'square_ev', minEvPerSol: own[20]!, stakeLamports: stake, orePriceLamports: price, fromSlotsBeforeEnd: 10, squares: [20, 24] });
    const payload = createEvaluator([r]).onLive(live())[0]!.payload as SquareEvAlert;
    expect(payload.squares.map((h) => h.square)).toEqual([20]);
    expect(payload).toMatchObject({ orePriceLamports: price, orePriceSource: 'caller' });
  });

  it('stays silent when no square meets the bar', () => {
    const r = rule({ kind: 'square_ev', minEvPerSol: sorted[0]! + 0.01, stakeLamports: stake, orePriceLamports: null, fromSlotsBeforeEnd: 10, squares: null });
    expect(createEvaluator([r]).onLive(live())).toEqual([]);
  });

  it('figures the board once per distinct stake and price', () => {
    const rules = Array.from({ length: 300 }, (_, i) => rule({ kind: 'square_ev', minEvPerSol: 10, stakeLamports: stake * (1 + (i % 3)), orePriceLamports: i % 2 === 0 ? null : 2 * SOL, fromSlotsBeforeEnd: 50, squares: null }));
    const spy = boardEv as jest.MockedFunction<typeof boardEv>;
    spy.mockClear();
    createEvaluator(rules).onLive(live());
    // Three stakes; the explicit price equals the production cost, so one price.
    expect(spy).toHaveBeenCalledTimes(3);
  });

  it('does not fire again in the same round after a restart from its state', () => {
    const r = rule({ kind: 'square_ev', minEvPerSol: -1, stakeLamports: stake, orePriceLamports: null, fromSlotsBeforeEnd: 20, squares: null });
    const first = createEvaluator([r]);
    expect(first.onLive(live())).toHaveLength(1);
    expect(createEvaluator([r], first.state()).onLive(live())).toEqual([]);
  });
});

describe('motherlode', () => {
  it('fires when the pool reaches the bar, then not again until it fell below', () => {
    const low = rule({ kind: 'motherlode', minOre: 40 });
    const high = rule({ kind: 'motherlode', minOre: 60 });
    const e = createEvaluator([low, high]);
    const [firing] = e.onLive(live());
    expect(firing).toEqual({ ruleId: low.id, dedupKey: `${low.id}:motherlode:100`, payload: { type: 'alert.motherlode', ruleId: low.id, roundId: 100, minOre: 40, poolBaseUnits: 50 * ORE_BASE_UNITS } });
    expect(e.onLive(live({ roundId: 101 }, 55 * ORE_BASE_UNITS))).toEqual([]);
    expect(keys(e.onLive(live({ roundId: 102 }, 60 * ORE_BASE_UNITS)))).toEqual([`${high.id}:motherlode:102`]);
    // The motherlode was hit: the pool starts over, and the next climb fires again.
    expect(e.onLive(live({ roundId: 103 }, 0))).toEqual([]);
    expect(keys(e.onLive(live({ roundId: 104 }, 40 * ORE_BASE_UNITS)))).toEqual([`${low.id}:motherlode:104`]);
  });

  it('judges the pool in base units, the bar rounded to the nearest', () => {
    const r = rule({ kind: 'motherlode', minOre: 0.1 });
    const e = createEvaluator([r]);
    expect(e.onLive(live({}, 0.1 * ORE_BASE_UNITS - 1))).toEqual([]);
    expect(e.onLive(live({}, 0.1 * ORE_BASE_UNITS))).toHaveLength(1);
  });

  it('skips a pool not read, and keeps quiet after a restart from its state', () => {
    const r = rule({ kind: 'motherlode', minOre: 1 });
    const e = createEvaluator([r]);
    expect(e.onLive(live({}, null))).toEqual([]);
    expect(e.onLive(live())).toHaveLength(1);
    expect(createEvaluator([r], e.state()).onLive(live({ roundId: 101 }))).toEqual([]);
  });

  it('judges a new bar afresh, keeps a renamed rule quiet, and never fires a disabled or removed rule', () => {
    const r = rule({ kind: 'motherlode', minOre: 10 });
    const e = createEvaluator([r]);
    expect(e.onLive(live())).toHaveLength(1);
    e.upsert({ ...r, name: 'renamed' });
    expect(e.onLive(live())).toEqual([]);
    e.upsert({ ...r, minOre: 20 } as Rule);
    expect(e.onLive(live())).toHaveLength(1);
    e.upsert({ ...r, enabled: false });
    expect(e.onLive(live({}, 49 * ORE_BASE_UNITS))).toEqual([]);
    e.upsert(r);
    expect(e.onLive(live())).toHaveLength(1);
    e.remove(r.id);
    expect(e.state().motherlodeHolding).toEqual([]);
    expect(e.onLive(live({}, 0))).toEqual([]);
    expect(e.onLive(live())).toEqual([]);
  });
});

describe('wallet', () => {
  it('fires on a live deploy of a watched wallet only', () => {
    const r = rule({ kind: 'wallet', addresses: [ALICE], on: ['deploy'] });
    const e = createEvaluator([r]);
    expect(e.onMinerDeployed(deploy(BOB, 100, [1]))).toEqual([]);
    expect(e.onMinerDeployed(deploy(ALICE, 100, [1, 2]))).toEqual([
      {
        ruleId: r.id,
        dedupKey: `${r.id}:wallet:100:${ALICE}:deploy`,
        payload: { type: 'alert.wallet', ruleId: r.id, address: ALICE, on: 'deploy', roundId: 100, source: 'deploys', squares: [1, 2], deployedLamports: SOL / 5, winningSquare: null, ore: null },
      },
    ]);
  });

  it("infers a win, the top miner and the motherlode from the live deploys when the round settles before its ledger rows", () => {
    const r = rule({ kind: 'wallet', addresses: [ALICE, BOB], on: ['win', 'top_miner', 'motherlode'] });
    const e = createEvaluator([r]);
    e.onMinerDeployed(deploy(ALICE, 100, [3]));
    e.onMinerDeployed(deploy(ALICE, 100, [7]));
    e.onMinerDeployed(deploy(BOB, 100, [4]));
    const firings = e.onRoundSettled(settled(100, 7, { topMiner: ALICE, motherlode: 300 * ORE_BASE_UNITS }));
    expect(keys(firings)).toEqual([`${r.id}:wallet:100:${ALICE}:win`, `${r.id}:wallet:100:${ALICE}:top_miner`, `${r.id}:wallet:100:${ALICE}:motherlode`]);
    expect(firings[0]!.payload).toMatchObject({ source: 'deploys', squares: [3, 7], winningSquare: 7 });
    // The round's deploys are forgotten once it settled.
    expect(e.onRoundSettled(settled(100, 7))).toEqual([]);
  });

  it('infers nothing from a deploy that did not show its squares', () => {
    const r = rule({ kind: 'wallet', addresses: [ALICE], on: ['win'] });
    const e = createEvaluator([r]);
    e.onMinerDeployed(deploy(ALICE, 100, [7]));
    e.onMinerDeployed(deploy(ALICE, 100, null));
    expect(e.onRoundSettled(settled(100, 7))).toEqual([]);
  });

  it('fires from the ledger rows under the same keys as from the deploys', () => {
    const r = rule({ kind: 'wallet', addresses: [ALICE], on: ['deploy', 'win', 'top_miner', 'motherlode'] });
    const e = createEvaluator([r]);
    const live = e.onMinerDeployed(deploy(ALICE, 100, [7]));
    const inferred = e.onRoundSettled(settled(100, 7, { topMiner: ALICE, motherlode: 5 }));
    const ledger = e.onMinersSettled({ roundId: 100, count: 2, miners: [row(BOB, 100), row(ALICE, 100, { squares: [7], heldWinningSquare: true, topMiner: true, oreTopMiner: ORE_BASE_UNITS, oreMotherlode: 5 })] });
    expect(keys(ledger)).toEqual([...keys(live), ...keys(inferred)]);
    expect(ledger[2]!.payload).toMatchObject({ source: 'ledger', on: 'top_miner', ore: ORE_BASE_UNITS, winningSquare: 7, deployedLamports: SOL });
    expect(ledger[3]!.payload).toMatchObject({ on: 'motherlode', ore: 5 });
  });

  it('leaves a round whose ledger rows came first to the ledger', () => {
    const r = rule({ kind: 'wallet', addresses: [ALICE], on: ['win'] });
    const e = createEvaluator([r]);
    e.onMinerDeployed(deploy(ALICE, 100, [7]));
    expect(e.onMinersSettled({ roundId: 100, count: 1, miners: [row(ALICE, 100, { heldWinningSquare: true })] })).toHaveLength(1);
    expect(e.onRoundSettled(settled(100, 7))).toEqual([]);
  });

  it('ignores rows of rounds settled before the rule was created', () => {
    const r = rule({ kind: 'wallet', addresses: [ALICE], on: ['deploy'] });
    expect(createEvaluator([r]).onMinersSettled({ roundId: 5, count: 1, miners: [row(ALICE, 5, { settledAt: BEFORE })] })).toEqual([]);
  });
});

describe('event', () => {
  const drought = (id: number, value: number, ts = AFTER): LogEvent => ({ id, ts, kind: 'drought_broken', grid: 4, drought: value, roundId: 90 });

  it("fires on events of the rule's kind that pass its filters", () => {
    const any = rule({ kind: 'event', eventKind: 'drought_broken', filters: [] });
    const long = rule({ kind: 'event', eventKind: 'drought_broken', filters: [{ field: 'drought', op: '>=', value: 200 }] });
    const other = rule({ kind: 'event', eventKind: 'streak', filters: [] });
    const e = createEvaluator([any, long, other]);
    expect(keys(e.onEvent(drought(7, 150)))).toEqual([`${any.id}:event:7`]);
    const both = e.onEvent(drought(8, 250));
    expect(keys(both)).toEqual([`${any.id}:event:8`, `${long.id}:event:8`]);
    expect(both[0]!.payload).toEqual({ type: 'alert.event', ruleId: any.id, roundId: 90, event: drought(8, 250) });
  });

  it("relays a withdrawal to every rule of the withdrawn event's kind", () => {
    const long = rule({ kind: 'event', eventKind: 'drought_broken', filters: [{ field: 'drought', op: '>=', value: 200 }] });
    const withdrawals = rule({ kind: 'event', eventKind: 'withdrawn', filters: [] });
    const e = createEvaluator([long, withdrawals]);
    const withdrawn: LogEvent = { id: 9, ts: AFTER, kind: 'withdrawn', eventId: 8, eventKind: 'drought_broken', roundId: 90 };
    expect(keys(e.onEvent(withdrawn))).toEqual([`${withdrawals.id}:event:9`, `${long.id}:event:9`]);
  });

  it('gives a null roundId for an event of no round, and skips events older than the rule', () => {
    const tier = rule({ kind: 'event', eventKind: 'tier', filters: [] });
    const e = createEvaluator([tier]);
    expect(e.onEvent({ id: 3, ts: AFTER, kind: 'tier', activeSubs: 100, tokenNow: 0.2, direction: 'up' })[0]!.payload.roundId).toBeNull();
    expect(e.onEvent({ id: 4, ts: BEFORE, kind: 'tier', activeSubs: 99, tokenNow: 0.1, direction: 'down' })).toEqual([]);
  });
});

describe('strategy_signal', () => {
  it("relays the strategy's decision for the open round", () => {
    const r = rule({ kind: 'strategy_signal', strategyId: 'stg_1111111111111111111111' });
    const e = createEvaluator([r]);
    const decision: ForwardDecision = { strategyId: 'stg_1111111111111111111111', roundId: 101, decision: { bet: true, reason: 'bet', squares: [2, 9], stakesLamports: [SOL, SOL / 2] } };
    expect(e.onForwardDecision(decision)).toEqual([
      {
        ruleId: r.id,
        dedupKey: `${r.id}:strategy_signal:101`,
        payload: { type: 'alert.strategy_signal', ruleId: r.id, roundId: 101, strategyId: 'stg_1111111111111111111111', bet: true, reason: 'bet', squares: [2, 9], stakesLamports: [SOL, SOL / 2], totalLamports: 1.5 * SOL },
      },
    ]);
    expect(e.onForwardDecision({ ...decision, strategyId: 'stg_2222222222222222222222' })).toEqual([]);
    expect(e.onForwardDecision({ ...decision, decision: { bet: false, reason: 'filtered', squares: [], stakesLamports: [] } })[0]!.payload).toMatchObject({ bet: false, reason: 'filtered', totalLamports: 0 });
  });
});

describe('at scale', () => {
  it('evaluates 10,000 rules of every kind per message, firing exactly the ones concerned', () => {
    const rules: Rule[] = [];
    for (let i = 0; i < 2_000; i++) {
      rules.push(rule({ kind: 'motherlode', minOre: 1 + (i % 100) }));
      rules.push(rule({ kind: 'square_ev', minEvPerSol: 10, stakeLamports: SOL / 10 + (i % 50), orePriceLamports: null, fromSlotsBeforeEnd: 1 + (i % 200), squares: null }));
      rules.push(rule({ kind: 'wallet', addresses: [i === 0 ? ALICE : BOB], on: ['deploy'] }));
      rules.push(rule({ kind: 'event', eventKind: i % 2 === 0 ? 'streak' : 'big_round', filters: [] }));
      rules.push(rule({ kind: 'strategy_signal', strategyId: `stg_${String(i).padStart(22, '1').replace(/0/g, 'z')}` }));
    }
    const e = createEvaluator(rules);
    // Pool 50 ORE: the rules with bars 1..50.
    expect(e.onLive(live())).toHaveLength(1_000);
    expect(e.onLive(live({ slot: 1_001 }))).toEqual([]);
    expect(e.onMinerDeployed(deploy(ALICE, 100, [1]))).toHaveLength(1);
    expect(e.onEvent({ id: 1, ts: AFTER, kind: 'streak', grid: 1, length: 3, roundId: 99 })).toHaveLength(1_000);
  });
});
