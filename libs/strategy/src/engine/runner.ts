import type { Dsl } from '../dsl/types';
import { History, RETURNS, SQUARES, type RoundInput } from '../history/history';
import { FilterSet, filterNeeds } from './filters';
import { Lookback } from './lookback';
import { oreEarned, oreValueLamports, payoutLamports, returnedLamports } from './payout';
import { FLAT, KELLY, Progression } from './sizing';
import { FIXED_SHAPE, SquareSelector, selectionNeeds } from './select';
import { ORE_FLUSH } from './bet-account';
import { RunStats } from './run-stats';
import { fullResult, summarize, type BacktestResult, type RunBounds } from '../backtest/result';
import type { Decision, DecisionReason, RoundOutcome, RunnerOptions, RunSummary } from './types';

/**
 * The SOL back of stakes on `returns` round i (SPEC 7.7), each square's added to `paid`.
 * Stakes are `uniform` on every square when it is > 0, else stakes[j] for squares[start + j].
 */
function returnedBack(
  h: History,
  i: number,
  w: number,
  squares: Int8Array,
  start: number,
  m: number,
  uniform: number,
  stakes: Float64Array,
  paid: Float64Array,
): number {
  const deployed = h.deployed;
  const base = i * SQUARES;
  let back = 0;
  for (let j = 0; j < m; j++) {
    const s = squares[start + j]!;
    const r = returnedLamports(uniform > 0 ? uniform : stakes[j]!, deployed[base + s]!, s === w);
    paid[s]! += r;
    back += r;
  }
  return back;
}

/** The ORE (base units) a stake `sw` on the winner of `returns` round i earns (0 for no stake). */
function winnerOre(h: History, i: number, sw: number): number {
  return sw > 0 ? oreEarned(sw, h.winnerDeployed[i]!, h.oreReward[i]!, h.motherlode[i]!, h.split[i]!, h.drawHi[i]!, h.drawLo[i]!) : 0;
}

/**
 * A flat run of at least this many rounds reads its squares from the history's
 * precomputed rankings (derived once per history, 25 bytes a round each) rather than
 * keeping its Lookback up to date round by round.
 */
const PRECOMPUTED_MIN_ROUNDS = 20_000;

// How the fused loop chooses squares (see SquareSelector.inlineChoice).
const INCREMENTAL = 0;
const PREFIX = 1;
const PREVIOUS = 2;
const DROUGHT_PREFIX = 3;
const WON_SUFFIX = 4;
const NO_COUNTS = new Uint8Array(0);
const NO_STAKES = new Float64Array(0);
const INLINE_CODES = { prefix: PREFIX, previous: PREVIOUS, drought: DROUGHT_PREFIX, won: WON_SUFFIX } as const;

// Reason codes, in the order the checks run.
const BET = 0;
const VOIDED = 1;
const STOPPED = 2;
const COOLDOWN = 3;
const NO_SQUARES = 4;
const FILTERED = 5;
const ZERO_STAKES = 6;
const BANKROLL = 7;
const REASONS: readonly DecisionReason[] = ['bet', 'voided', 'stopped', 'cooldown', 'no_squares', 'filtered', 'zero_stakes', 'bankroll_depleted'];

/**
 * The one engine (SPEC 7.2): a stateful runner over a History, one round in, one
 * decision and settlement out. The decision for a round uses only the non-voided rounds
 * before it, kept in incremental state; voided rounds are skipped without a trace.
 * A backtest seeks to its window and runs it; a forward test steps live rounds.
 */
export class Runner {
  readonly stats: RunStats;
  private released = false;
  private readonly lb: Lookback;
  private readonly selector: SquareSelector;
  private readonly filters: FilterSet;
  private readonly progression: Progression;
  /** The squares of the current decision (the selector's array, or `kellySquares`). */
  private squares: Int8Array;
  private readonly kellySquares = new Int8Array(SQUARES);
  private readonly stakes = new Float64Array(SQUARES);
  private chosen = 0;
  /** The stake of every chosen square, or 0 when `stakes` holds one per square (kelly). */
  private uniformStake = 0;
  private capHit = false;
  private pos = 0;
  /** History index of the first round taken in bet mode, -1 before. */
  private startIndex = -1;
  private cooldownLeft = 0;
  /** False when no decision ever reads history (fixed shape, no filters, not kelly). */
  private readonly observes: boolean;
  /** Fixed squares at a flat stake with no filters: every decision is the same one. */
  private readonly constantDecision: boolean;
  /**
   * runTo may take the fused loop: one stake for every square of a round (any sizing mode
   * but kelly, a flat one above 0), no filters, no chance moments.
   */
  private readonly fused: boolean;
  /** Flat sizing: the stake per square (0: nothing is ever staked) and whether the cap cut it. */
  private readonly flatStake: number;
  private readonly flatCapHit: boolean;
  private readonly precomputed: boolean | undefined;
  // Parameters, read once.
  private readonly cap: number;
  private readonly fee: number;
  private readonly cooldownRounds: number;
  private readonly kellyFraction: number;
  private readonly kellyBankroll: number;
  private readonly lookback: number;

  constructor(
    readonly dsl: Dsl,
    readonly history: History,
    options: RunnerOptions = {},
  ) {
    const p = dsl.params;
    const kelly = p.sizing_mode === 'kelly';
    const fromFilters = filterNeeds(dsl.filters);
    this.lb = new Lookback(history, {
      ...selectionNeeds(dsl.base_strategy),
      ...fromFilters,
      windowCounts: fromFilters.windowCounts || kelly,
      lookback: p.hit_rate_lookback,
    });
    this.selector = new SquareSelector(dsl);
    this.squares = this.selector.chosen;
    this.filters = new FilterSet(dsl.filters);
    this.progression = new Progression(p);
    this.stats = new RunStats(history, p, options.record === true, options.chanceMoments === true, options.recordStakes === true);
    this.cap = p.max_bet_per_square_lamports;
    this.fee = p.tx_fee_lamports;
    this.cooldownRounds = p.cooldown_after_loss_rounds;
    this.kellyFraction = p.kelly_fraction;
    this.kellyBankroll = p.kelly_bankroll_lamports;
    this.lookback = p.hit_rate_lookback;
    const fixed = FIXED_SHAPE.has(dsl.base_strategy);
    this.observes = !fixed || kelly || dsl.filters.length > 0;
    this.constantDecision = fixed && p.sizing_mode === 'flat' && dsl.filters.length === 0;
    if (this.constantDecision) {
      this.chosen = this.selector.select(this.lb, history);
      this.squares = this.selector.chosen;
      this.uniformStake = Math.min(p.bet_size_lamports, this.cap);
      this.capHit = p.bet_size_lamports > this.cap;
    }
    if (p.sizing_mode === 'flat') this.stats.constantStake = Math.min(p.bet_size_lamports, this.cap);
    this.flatStake = p.sizing_mode === 'flat' ? Math.min(Math.floor(p.bet_size_lamports), this.cap) : 0;
    // A flat stake of 0 bets nothing: the general path says so round by round.
    this.fused = !kelly && dsl.filters.length === 0 && options.chanceMoments !== true && (p.sizing_mode !== 'flat' || this.flatStake > 0);
    this.flatCapHit = Math.floor(p.bet_size_lamports) > this.cap;
    this.precomputed = options.precomputedRankings;
  }

  /** Index in the history of the next round this runner will take. */
  get position(): number {
    return this.pos;
  }

  /**
   * Consumes the history before index `index` as lookback only (no bets, no stats), the
   * state a backtest starting there begins from. Only before the first bet-mode round.
   */
  seek(index: number): void {
    this.assertNotStarted('seek');
    if (!(Number.isInteger(index) && index >= this.pos && index <= this.history.length)) {
      throw new RangeError(`cannot seek to ${index} (position ${this.pos}, ${this.history.length} rounds)`);
    }
    this.lb.rebuild(index);
    this.pos = index;
  }

  /** Takes the next round as lookback only (appending it to the history if it is new). */
  observe(round?: RoundInput): void {
    this.assertNotStarted('observe');
    const i = this.next(round);
    const w = this.history.winning[i]!;
    if (w >= 0) this.lb.observe(i, w);
    this.pos = i + 1;
  }

  /** The decision for the next round, from the rounds before it; changes nothing. */
  decide(): Decision {
    return this.decision(this.decideInto());
  }

  /**
   * Decides and settles the next round: `round` is appended to the history when the
   * runner is at its end, or must be the round stored there; without it, the stored
   * next round is taken.
   */
  step(round?: RoundInput): RoundOutcome {
    const h = this.history;
    const i = this.next(round);
    const w = h.winning[i]!;
    this.begin(i, i + 1);
    this.pos = i + 1;
    if (w < 0) {
      return {
        roundId: h.ids[i]!,
        winningSquare: null,
        decision: this.decision(VOIDED),
        stakeLamports: 0,
        payoutLamports: 0,
        pnlLamports: 0,
        oreEarned: 0,
        oreValueLamports: 0,
        hit: false,
        capHit: false,
        exit: null,
      };
    }
    const stats = this.stats;
    const before = { stake: stats.totalStake, net: stats.net, won: stats.roundsWon, capHits: stats.capHits, exit: stats.exit, oreValue: stats.oreValue };
    const reason = this.decideInto();
    // Snapshot the decision now: settling observes the round, which moves the rankings.
    const decision = this.decision(reason);
    const ore = this.settle(i, w, reason);
    const stake = stats.totalStake - before.stake;
    const pnl = stats.net - before.net;
    return {
      roundId: h.ids[i]!,
      winningSquare: w,
      decision,
      stakeLamports: stake,
      payoutLamports: reason === BET ? pnl + stake + this.fee : 0,
      pnlLamports: pnl,
      oreEarned: ore,
      oreValueLamports: stats.oreValue - before.oreValue,
      hit: stats.roundsWon > before.won,
      capHit: stats.capHits > before.capHits,
      exit: before.exit === null ? stats.exit : null,
    };
  }

  /** Decides and settles every stored round from the position up to index `end` (exclusive). */
  runTo(end: number): void {
    if (!(Number.isInteger(end) && end >= this.pos && end <= this.history.length)) {
      throw new RangeError(`cannot run to ${end} (position ${this.pos}, ${this.history.length} rounds)`);
    }
    if (end === this.pos) return;
    this.begin(this.pos, end);
    if (this.fused) {
      this.runUniform(this.pos, end);
    } else {
      const winning = this.history.winning;
      for (let i = this.pos; i < end; i++) {
        const w = winning[i]!;
        if (w >= 0) this.settle(i, w, this.decideInto());
      }
    }
    this.pos = end;
  }

  /**
   * runTo for one stake on every chosen square (flat sizing, or a progression of
   * martingale, reverse_martingale, fibonacci or dalembert) without filters or chance
   * moments, the common case: the same decisions and accounts as decideInto + settle +
   * RunStats.bet (BetAccount.addBet), fused into one loop whose running figures live in
   * locals (registers) rather than object fields, written back once at the end, and whose
   * squares come from the history's precomputed rankings on long runs. runner.test.ts
   * checks it against step() round by round. It earns its keep in the production bundle:
   * with the general loop in its place the strategy bench's replays took up to 35% longer
   * for fixed shapes and 1.3-3.9x as long for the ranked rules, uncached analytics ~1.6x
   * (docs/decisions.md).
   */
  private runUniform(from: number, end: number): void {
    const h = this.history;
    const { winning, winnerDeployed, sumDeployed, rule, productionCost } = h;
    const stats = this.stats;
    const { betCount, winCount, paid, endedStreaks } = stats;
    const lb = this.lb;
    const selector = this.selector;
    const observes = this.observes;
    const constant = this.constantDecision;
    const progression = this.progression;
    // A progression sizes each round from the streak; flat sizing has one stake throughout.
    const progressive = progression.mode !== FLAT;
    const staked = stats.staked;
    const cap = this.cap;
    let stake = this.flatStake;
    let capHit = this.flatCapHit;
    const fee = this.fee;
    const cooldownRounds = this.cooldownRounds;
    const record = stats.record;
    const recordedPnl = stats.recordedPnl;
    const recordedStake = stats.recordedStake;
    const recordStakes = stats.recordStakes;
    const stopStreak = stats.stopStreak;
    const takeProfit = stats.takeProfit;
    const stopLoss = stats.stopLoss;
    let { roundsBet, roundsWon, squaresBet, net, totalStake, totalRecovery, capHits, capLoss, minNet, peak, maxDrawdown, streak, maxStreak, recorded, ore, oreValue } =
      stats;
    let exited = stats.exit !== null;
    let cooldownLeft = this.cooldownLeft;
    let m = constant ? this.chosen : 0;
    let squares = this.squares;
    let start = 0;
    // A constant decision bets the same squares every round: a hit is one bit test, and each
    // square's bet count is the rounds bet, added once after the loop (a shape of 16 squares
    // walked its list every round).
    let constantMask = 0;
    if (constant) for (let j = 0; j < m; j++) constantMask |= 1 << squares[j]!;
    let constantBets = 0;
    // With precomputed rankings the Lookback is not fed round by round: the loop keeps
    // only what the choice still reads (rounds seen, the last one, last wins) and the
    // Lookback is rebuilt at the end, so step() and decide() continue from the same state.
    const inline = !constant && (this.precomputed ?? end - from >= PRECOMPUTED_MIN_ROUNDS) ? selector.inlineChoice(h) : null;
    const how = inline === null ? INCREMENTAL : INLINE_CODES[inline.how];
    const k = inline?.k ?? 0;
    const counts = inline?.counts ?? NO_COUNTS;
    if (inline !== null) squares = inline.order;
    const lastWin = lb.lastWin;
    let seen = lb.seen;
    let prev = lb.prev;
    let wonSquares = 0;
    for (let s = 0; s < SQUARES; s++) if (lastWin[s]! >= 0) wonSquares++;
    for (let i = from; i < end; i++) {
      const w = winning[i]!;
      if (w < 0) continue;
      let bet = false;
      if (exited) {
        // Stopped: no bet.
      } else if (cooldownLeft > 0) {
        cooldownLeft--;
      } else {
        if (how === PREFIX) {
          m = seen === 0 ? 0 : k;
          start = i * SQUARES;
        } else if (how === PREVIOUS) {
          m = seen === 0 ? 0 : k;
          start = prev * SQUARES;
        } else if (how === DROUGHT_PREFIX) {
          m = 0;
          start = i * SQUARES;
          if (seen > 0) m = counts[i]! < k ? counts[i]! : k;
        } else if (how === WON_SUFFIX) {
          // The most recent winners end the recency ranking (never-won squares lead it);
          // their order does not matter to the settlement.
          m = wonSquares < k ? wonSquares : k;
          start = (i + 1) * SQUARES - m;
        } else if (!constant) {
          m = selector.select(lb, h);
          squares = selector.chosen;
        }
        bet = m > 0;
        if (bet && progressive) {
          stake = Math.floor(progression.rawStake(streak));
          capHit = stake > cap;
          if (capHit) stake = cap;
          bet = stake > 0;
        }
      }
      if (bet) {
        let hit = false;
        if (constant) {
          hit = ((constantMask >>> w) & 1) === 1;
          constantBets++;
        } else {
          for (let j = start; j < start + m; j++) {
            const s = squares[j]!;
            betCount[s]!++;
            if (s === w) hit = true;
          }
        }
        // Flat sizing's per-square stakes follow from the counts (RunStats.constantStake).
        if (progressive) for (let j = start; j < start + m; j++) staked[squares[j]!]! += stake;
        const stakeSum = stake * m;
        const sw = hit ? stake : 0;
        let payout: number;
        if (rule[i] === RETURNS) {
          payout = returnedBack(h, i, w, squares, start, m, stake, NO_STAKES, paid);
          const earned = winnerOre(h, i, sw);
          if (earned > 0) {
            // The ORE's value at the round's production cost is part of the winner's payout.
            const value = oreValueLamports(earned, productionCost[i]!);
            paid[w]! += value;
            payout += value;
            ore += earned;
            oreValue += value;
            if (ore > ORE_FLUSH) {
              stats.carryOre(ore);
              ore = 0;
            }
          }
        } else {
          // Called on a hit only: the integer payout is too large for V8 to inline into this
          // loop, and a call on every round (a miss pays 0) cost the replay a third of its speed.
          const dw = winnerDeployed[i]!;
          payout = hit ? payoutLamports(sw, dw, sumDeployed[i]! - dw + stakeSum - sw) : 0;
          if (hit) paid[w]! += payout;
        }
        const pnl = payout - stakeSum - fee;
        if (hit) {
          roundsWon++;
          winCount[w]!++;
        }
        if (progressive) {
          if (pnl < 0) progression.onLoss();
          else progression.onWin();
        }
        roundsBet++;
        squaresBet += m;
        totalStake += stakeSum;
        net += pnl;
        if (net < minNet) minNet = net;
        if (net > peak) peak = net;
        else if (peak - net > maxDrawdown) maxDrawdown = peak - net;
        if (pnl < 0) {
          cooldownLeft = cooldownRounds;
          streak++;
          if (streak > maxStreak) maxStreak = streak;
          if (capHit) capLoss -= pnl;
        } else if (streak > 0) {
          totalRecovery += pnl;
          endedStreaks.push(streak);
          streak = 0;
        }
        if (capHit) capHits++;
        if (record) {
          recordedPnl[recorded] = pnl;
          if (recordStakes) recordedStake[recorded] = stakeSum;
          recorded++;
        }
        if (stopStreak > 0 && streak >= stopStreak) {
          stats.stop('stop_loss_streak', i);
          exited = true;
        } else if (takeProfit > 0 && net >= takeProfit) {
          stats.stop('take_profit', i);
          exited = true;
        } else if (stopLoss > 0 && net <= -stopLoss) {
          stats.stop('session_stop_loss', i);
          exited = true;
        }
      } else if (record) {
        recordedPnl[recorded] = 0;
        if (recordStakes) recordedStake[recorded] = 0;
        recorded++;
      }
      if (how !== INCREMENTAL) {
        const before = lastWin[w]!;
        if (before < 0) wonSquares++;
        lastWin[w] = seen;
        seen++;
        prev = i;
      } else if (observes) {
        lb.observe(i, w);
      }
    }
    if (how !== INCREMENTAL) lb.rebuild(end);
    if (constantBets > 0) for (let j = 0; j < m; j++) betCount[squares[j]!]! += constantBets;
    Object.assign(stats, { roundsBet, roundsWon, squaresBet, net, totalStake, totalRecovery, capHits, capLoss, minNet, peak, maxDrawdown, streak, maxStreak, recorded, ore, oreValue });
    this.cooldownLeft = cooldownLeft;
    this.chosen = m;
    this.squares = start === 0 ? squares : squares.slice(start, start + m);
    this.uniformStake = stake;
    this.capHit = capHit;
  }

  /** Figures of the rounds taken in bet mode so far (range fields null before any). */
  summary(): RunSummary {
    if (this.startIndex < 0) return { ...summarize(this.stats, this.bounds()), rangeMin: null, rangeMax: null, exitRoundId: null };
    return summarize(this.stats, this.bounds());
  }

  /** The full result, per-round arrays included; needs the `record` option. */
  result(): BacktestResult {
    if (this.released) throw new Error('the runner was released');
    if (this.startIndex < 0) throw new RangeError('no round taken yet');
    return fullResult(this.stats, this.bounds());
  }

  private bounds(): RunBounds {
    const ids = this.history.ids;
    return this.startIndex < 0
      ? { startIndex: 0, endIndex: 0, firstId: 0, lastId: 0 }
      : { startIndex: this.startIndex, endIndex: this.pos, firstId: ids[this.startIndex]!, lastId: ids[this.pos - 1]! };
  }

  /**
   * Ends this runner's use: its record arrays go to the next recording runner on this
   * thread (RunStats.release). The summary and stats stay readable; taking more rounds
   * or the full result is refused.
   */
  release(): void {
    this.stats.release();
    this.released = true;
  }

  /** Marks the start of bet mode and makes room for rounds up to `end` in the record. */
  private begin(from: number, end: number): void {
    if (this.released) throw new Error('the runner was released');
    if (this.startIndex < 0) this.startIndex = from;
    if (this.stats.record) this.stats.reserve(end - from);
  }

  private next(round: RoundInput | undefined): number {
    const h = this.history;
    const i = this.pos;
    if (round !== undefined) {
      if (i === h.length) h.append(round);
      else if (h.ids[i] !== round.id) throw new RangeError(`round ${round.id} is not the next round (${h.ids[i]!} is)`);
    }
    if (i >= h.length) throw new RangeError('no next round in the history');
    return i;
  }

  private assertNotStarted(what: string): void {
    if (this.startIndex >= 0) throw new Error(`${what} is only allowed before the first round is taken in bet mode`);
  }

  private decision(reason: number): Decision {
    if (reason !== BET) return { bet: false, reason: REASONS[reason]!, squares: [], stakesLamports: [] };
    return {
      bet: true,
      reason: 'bet',
      squares: Array.from(this.squares.subarray(0, this.chosen)),
      stakesLamports: Array.from(this.currentStakes().subarray(0, this.chosen)),
    };
  }

  /** Chooses squares, checks filters, sizes stakes into the scratch fields; returns a reason code. */
  private decideInto(): number {
    if (this.stats.exit !== null) return STOPPED;
    if (this.cooldownLeft > 0) return COOLDOWN;
    if (this.constantDecision) return BET;
    const m = this.selector.select(this.lb, this.history);
    if (m === 0) return NO_SQUARES;
    this.squares = this.selector.chosen;
    if (this.filters.size > 0 && !this.filters.pass(this.lb, this.history, this.stats.streak, this.squares, m)) return FILTERED;
    if (this.progression.mode === KELLY) return this.sizeKelly(m);
    let stake = Math.floor(this.progression.rawStake(this.stats.streak));
    this.capHit = stake > this.cap;
    if (this.capHit) stake = this.cap;
    if (!(stake > 0)) return ZERO_STAKES;
    this.uniformStake = stake;
    this.chosen = m;
    return BET;
  }

  /** SPEC 7.4 kelly: a stake per square from its smoothed hit rate and last round's odds. */
  private sizeKelly(m: number): number {
    const lb = this.lb;
    // The odds come from the previous round: with none, there is nothing to size.
    if (lb.seen === 0) return ZERO_STAKES;
    const bankroll = this.kellyBankroll + this.stats.net;
    if (bankroll <= 0) return BANKROLL;
    const h = this.history;
    const counts = lb.windowCounts!;
    const base = lb.prev * SQUARES;
    const total = h.totalDeployed[lb.prev]!;
    const n = Math.min(lb.seen, this.lookback);
    const chosen = this.squares;
    const out = this.kellySquares;
    let kept = 0;
    let capHit = false;
    for (let j = 0; j < m; j++) {
      const s = chosen[j]!;
      const d = h.deployed[base + s]!;
      if (d === 0) continue;
      const o = (0.891 * (total - d)) / d - 0.01;
      if (o <= 0) continue;
      const p = (counts[s]! + 1) / (n + SQUARES);
      const f = (p * o - (1 - p)) / o;
      if (f <= 0) continue;
      let stake = Math.floor(this.kellyFraction * f * bankroll);
      if (stake > this.cap) {
        stake = this.cap;
        capHit = true;
      }
      if (!(stake > 0)) continue;
      out[kept] = s;
      this.stakes[kept] = stake;
      kept++;
    }
    if (kept === 0) return ZERO_STAKES;
    this.squares = out;
    this.uniformStake = 0;
    this.chosen = kept;
    this.capHit = capHit;
    return BET;
  }

  /**
   * One non-voided round in bet mode, decided (`reason`): settle, account, then observe it.
   * Returns the ORE (base units) the bet earned.
   */
  private settle(i: number, w: number, reason: number): number {
    const h = this.history;
    const stats = this.stats;
    let ore = 0;
    if (reason === BET) {
      const m = this.chosen;
      const squares = this.squares;
      const betCount = stats.betCount;
      const uniform = this.uniformStake;
      let stakeSum = 0;
      let sw = 0;
      // One pass: per-square accounts, total stake and the stake on the winner.
      if (uniform > 0 && stats.constantStake > 0) {
        // Flat: every stake is the same, so per-square stakes follow from the counts.
        for (let j = 0; j < m; j++) {
          const s = squares[j]!;
          betCount[s]!++;
          if (s === w) sw = uniform;
        }
        stakeSum = uniform * m;
      } else {
        const staked = stats.staked;
        const stakes = uniform > 0 ? this.currentStakes() : this.stakes;
        for (let j = 0; j < m; j++) {
          const s = squares[j]!;
          const st = stakes[j]!;
          betCount[s]!++;
          staked[s]! += st;
          stakeSum += st;
          if (s === w) sw = st;
        }
      }
      let payout: number;
      if (h.rule[i] === RETURNS) {
        payout = returnedBack(h, i, w, squares, 0, m, uniform, this.stakes, stats.paid);
        ore = winnerOre(h, i, sw);
        if (ore > 0) {
          // The ORE's value at the round's production cost is part of the winner's payout.
          const value = oreValueLamports(ore, h.productionCost[i]!);
          stats.paid[w]! += value;
          payout += value;
          stats.addOre(ore, value);
        }
      } else {
        const dw = h.winnerDeployed[i]!;
        payout = sw > 0 ? payoutLamports(sw, dw, h.sumDeployed[i]! - dw + stakeSum - sw) : 0;
        if (sw > 0) stats.paid[w]! += payout;
      }
      const pnl = payout - stakeSum - this.fee;
      if (sw > 0) {
        stats.roundsWon++;
        stats.winCount[w]!++;
      }
      if (pnl < 0) this.cooldownLeft = this.cooldownRounds;
      const mode = this.progression.mode;
      if (mode !== FLAT && mode !== KELLY) {
        if (pnl < 0) this.progression.onLoss();
        else this.progression.onWin();
      }
      if (stats.chance) stats.addChanceMoments(i, squares, this.currentStakes(), m, stakeSum);
      stats.bet(i, m, stakeSum, pnl, this.capHit);
    } else {
      if (reason === COOLDOWN) this.cooldownLeft--;
      if (stats.record) stats.noBet();
    }
    if (this.observes) this.lb.observe(i, w);
    return ore;
  }

  /** The per-square stakes of the current decision (filled in for uniform sizing). */
  private currentStakes(): Float64Array {
    if (this.uniformStake > 0) this.stakes.fill(this.uniformStake, 0, this.chosen);
    return this.stakes;
  }
}

/** A runner over `history` (a new, empty one when omitted), positioned at its start. */
export function createRunner(dsl: Dsl, history: History = new History(), options: RunnerOptions = {}): Runner {
  return new Runner(dsl, history, options);
}
