/**
 * Incremental, deterministic derivation of the round events of SPEC 6 (drought_broken,
 * big_round, streak, motherlode, milestone) from settled rounds fed in ascending id order.
 *
 * The deriver is a small state machine: `onRound` returns the candidate events of one
 * round and advances the state; `snapshot` returns that state as plain JSON so the
 * service can persist it next to its watermark (the last processed round id) in the
 * transaction that appends the events, or rebuild it by replaying stored history.
 * Feeding the same history always yields the same events, whether in one run or across
 * any number of snapshot/restore cycles.
 *
 * Voided rounds (winningSquare null) are settled rounds without a winner:
 * - they are not hits: they neither break nor lengthen a drought and cannot fire
 *   drought_broken; droughts count non-voided rounds, as /stats and /grid do;
 * - they are transparent to streaks (neither extend nor break one), as SPEC 7.2 skips
 *   voided rounds in every "consecutive rounds" notion;
 * - they are neither big_round candidates nor part of the median window (the event's
 *   winningSquare would be undefined, and the Strategy Lab's rounds_since_big_round
 *   looks back over non-voided rounds only);
 * - they do count for milestones: a voided round with an id divisible by the modulus is
 *   settled, and its totalDeployed counts in cumulative deployed SOL like /stats'
 *   totalDeployedSol, which sums every indexed round.
 */
import { LAMPORTS_PER_SOL, type Round } from '@gridlab/contracts';
import { ConfigError, DecodeError, type FieldError } from '@gridlab/errors';
import { dedupKeys, type DerivedEvent, type RoundEventBody } from './events';
import { bigRoundThreshold, SortedWindow, type BigRoundRule } from '@gridlab/strategy';

const SQUARES = 25;
const STATE_VERSION = 2;

/** Thresholds of the round events; every one is configurable. */
export interface DeriverConfig {
  /** drought_broken fires when the winner's drought is at least this many rounds. */
  readonly droughtThreshold: number;
  /** big_round fires when totalDeployed >= this x the window's median. */
  readonly bigRoundMultiplier: number;
  /** Non-voided settled rounds before the current one whose median is taken. */
  readonly bigRoundWindow: number;
  /** Fewest rounds in the window for big_round to be judged at all. */
  readonly bigRoundMinHistory: number;
  /** Shortest run of wins reported as a streak (one event per length from here on). */
  readonly streakMinLength: number;
  /** A round whose id is a positive multiple of this is a rounds milestone. */
  readonly milestoneRoundModulus: number;
  /** Cumulative deployed SOL milestones are multiples of this many whole SOL. */
  readonly deployedSolStep: number;
}

/** SPEC 6's numbers. */
export const DEFAULT_DERIVER_CONFIG: DeriverConfig = {
  droughtThreshold: 100,
  bigRoundMultiplier: 2,
  bigRoundWindow: 1000,
  bigRoundMinHistory: 100,
  streakMinLength: 3,
  milestoneRoundModulus: 10_000,
  deployedSolStep: 100_000,
};

/** The fields of a settled round the derivation reads; a full `Round` fits. */
export type DerivableRound = Pick<Round, 'id' | 'winningSquare' | 'totalDeployed' | 'totalMiners' | 'motherlode' | 'settledAt'>;

/**
 * Everything the deriver remembers, as plain JSON (persist it with the watermark).
 * `lastRoundId` is the watermark: rounds at or below it are ignored.
 */
export interface DeriverState {
  readonly version: typeof STATE_VERSION;
  readonly lastRoundId: number | null;
  /**
   * Per square, the non-voided rounds processed since it last won. A square that never
   * won counts from the first round processed (SPEC 7.3: "a square that never won has a
   * drought equal to the number of rounds before r").
   */
  readonly droughts: readonly number[];
  /** Winner of the last non-voided round and how many in a row it has won (0 when none). */
  readonly streakSquare: number | null;
  readonly streakLength: number;
  /** totalDeployed (lamports) of the last non-voided rounds, oldest first, at most the window. */
  readonly recentTotals: readonly number[];
  /** Sum of totalDeployed over every processed round, decimal lamports (can pass 2^53). */
  readonly cumulativeDeployedLamports: string;
  /**
   * How many rounds (voided included) were processed: compared with how many are stored
   * up to the watermark, it tells that a round was stored below it. null in a state saved
   * by version 1, which did not count (the writer then derives again from the first round).
   */
  readonly roundCount: number | null;
}

/** One event stream's derivation state machine. */
export interface Deriver {
  readonly config: DeriverConfig;
  /** The watermark: id of the last round processed, null before the first. */
  readonly lastRoundId: number | null;
  /** Rounds processed (see DeriverState.roundCount). */
  readonly roundCount: number | null;
  /**
   * Candidate events of `round`, in a fixed order (drought_broken, big_round, streak,
   * motherlode, rounds milestone, deployedSol milestones ascending). A round whose id is not above
   * the watermark returns [] and changes nothing, so replays are harmless.
   * @throws DecodeError when the round's fields are out of range (state untouched).
   */
  onRound(round: DerivableRound): DerivedEvent<RoundEventBody>[];
  /** A copy of the state, JSON-serializable; `createDeriver(config, snapshot)` resumes it. */
  snapshot(): DeriverState;
}

/** Defaults overlaid with `overrides`, validated; every bad key is listed. */
export function resolveDeriverConfig(overrides: Partial<DeriverConfig> = {}): DeriverConfig {
  const config: DeriverConfig = { ...DEFAULT_DERIVER_CONFIG, ...overrides };
  const errors: FieldError[] = [];
  const integerAtLeast = (key: keyof DeriverConfig, min: number): void => {
    const v = config[key];
    if (!Number.isSafeInteger(v) || v < min) errors.push({ path: `/${key}`, message: `must be an integer >= ${min}` });
  };
  integerAtLeast('droughtThreshold', 1);
  integerAtLeast('bigRoundWindow', 1);
  integerAtLeast('bigRoundMinHistory', 1);
  integerAtLeast('streakMinLength', 2);
  integerAtLeast('milestoneRoundModulus', 1);
  integerAtLeast('deployedSolStep', 1);
  if (!Number.isFinite(config.bigRoundMultiplier) || config.bigRoundMultiplier <= 0) {
    errors.push({ path: '/bigRoundMultiplier', message: 'must be a number > 0' });
  }
  if (config.bigRoundMinHistory > config.bigRoundWindow) {
    errors.push({ path: '/bigRoundMinHistory', message: 'must not exceed bigRoundWindow (no round could ever qualify)' });
  }
  if (errors.length > 0) {
    throw new ConfigError(`invalid event derivation settings: ${errors.map((e) => e.path.slice(1)).join(', ')}`, { errors });
  }
  return config;
}

/** The state of a deriver that has seen nothing. */
function initialDeriverState(): DeriverState {
  return {
    version: STATE_VERSION,
    lastRoundId: null,
    droughts: new Array<number>(SQUARES).fill(0),
    streakSquare: null,
    streakLength: 0,
    recentTotals: [],
    cumulativeDeployedLamports: '0',
    roundCount: 0,
  };
}

/**
 * Validates a persisted state read back as untyped JSON.
 * @throws DecodeError `invalid_deriver_state` naming the first bad field.
 */
export function parseDeriverState(value: unknown): DeriverState {
  const fail = (field: string, why: string): never => {
    throw new DecodeError('invalid_deriver_state', `deriver state: ${field} ${why}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('state', 'is not an object');
  const s = value as Record<string, unknown>;
  // Version 1 is version 2 without roundCount.
  if (s['version'] !== STATE_VERSION && s['version'] !== 1) fail('version', `is not ${STATE_VERSION}`);
  const roundCount = s['version'] === 1 ? null : s['roundCount'];
  if (roundCount !== null && !isCount(roundCount)) fail('roundCount', 'is neither null nor a non-negative integer');
  const lastRoundId = s['lastRoundId'];
  if (lastRoundId !== null && !isCount(lastRoundId)) fail('lastRoundId', 'is neither null nor a non-negative integer');
  const droughts = s['droughts'];
  if (!Array.isArray(droughts) || droughts.length !== SQUARES || !droughts.every(isCount)) {
    fail('droughts', `is not ${SQUARES} non-negative integers`);
  }
  const streakSquare = s['streakSquare'];
  const streakLength = s['streakLength'];
  if (streakSquare !== null && !isSquare(streakSquare)) fail('streakSquare', 'is neither null nor a square 0..24');
  if (!isCount(streakLength)) fail('streakLength', 'is not a non-negative integer');
  if ((streakSquare === null) !== (streakLength === 0)) fail('streakLength', 'disagrees with streakSquare');
  if (isSquare(streakSquare) && (droughts as number[])[streakSquare] !== 0) fail('droughts', 'disagree with streakSquare');
  const recentTotals = s['recentTotals'];
  if (!Array.isArray(recentTotals) || !recentTotals.every(isCount)) fail('recentTotals', 'is not a list of non-negative integers');
  const cumulative = s['cumulativeDeployedLamports'];
  if (typeof cumulative !== 'string' || !/^(0|[1-9][0-9]*)$/.test(cumulative)) {
    fail('cumulativeDeployedLamports', 'is not a decimal integer string');
  }
  return {
    version: STATE_VERSION,
    lastRoundId: lastRoundId as number | null,
    droughts: [...(droughts as number[])],
    streakSquare: streakSquare as number | null,
    streakLength: streakLength as number,
    recentTotals: [...(recentTotals as number[])],
    cumulativeDeployedLamports: cumulative as string,
    roundCount: roundCount as number | null,
  };
}

/**
 * A deriver with `config` (defaults for omitted keys) resuming `state` (a fresh history
 * when omitted). If the window setting shrank since the state was saved, only the newest
 * totals are kept.
 * @throws ConfigError for bad settings, DecodeError for a malformed state.
 */
export function createDeriver(config: Partial<DeriverConfig> = {}, state?: DeriverState): Deriver {
  const settings = resolveDeriverConfig(config);
  const start = parseDeriverState(state ?? initialDeriverState());
  const stepLamports = BigInt(settings.deployedSolStep) * BigInt(LAMPORTS_PER_SOL);

  let lastRoundId = start.lastRoundId;
  const droughts = [...start.droughts];
  let streakSquare = start.streakSquare;
  let streakLength = start.streakLength;
  const window = new SortedWindow(settings.bigRoundWindow);
  const bigRoundRule: BigRoundRule = { multiplier: settings.bigRoundMultiplier, window: settings.bigRoundWindow, minHistory: settings.bigRoundMinHistory };
  for (const total of start.recentTotals.slice(-settings.bigRoundWindow)) window.push(total);
  let cumulative = BigInt(start.cumulativeDeployedLamports);
  let roundCount = start.roundCount;

  function onRound(round: DerivableRound): DerivedEvent<RoundEventBody>[] {
    checkRound(round);
    if (lastRoundId !== null && round.id <= lastRoundId) return [];
    const events: DerivedEvent<RoundEventBody>[] = [];
    const ts = round.settledAt;
    const roundId = round.id;
    const w = round.winningSquare;

    if (w !== null) {
      const drought = droughts[w]!;
      if (drought >= settings.droughtThreshold) {
        events.push({ dedupKey: dedupKeys.droughtBroken(roundId), ts, body: { kind: 'drought_broken', grid: w, drought, roundId } });
      }

      // The one big_round decision (shared with the Lab's rounds_since_big_round filter).
      const median = window.size >= settings.bigRoundMinHistory ? window.median() : null;
      const threshold = median === null ? null : bigRoundThreshold(bigRoundRule, window.size, median);
      if (median !== null && threshold !== null && round.totalDeployed >= threshold) {
        events.push({
          dedupKey: dedupKeys.bigRound(roundId),
          ts,
          body: {
            kind: 'big_round',
            roundId,
            deployedSol: round.totalDeployed / LAMPORTS_PER_SOL,
            thresholdSol: threshold / LAMPORTS_PER_SOL,
            multiplier: round.totalDeployed / median,
            winningSquare: w,
            totalMiners: round.totalMiners,
          },
        });
      }

      streakLength = w === streakSquare ? streakLength + 1 : 1;
      streakSquare = w;
      if (streakLength >= settings.streakMinLength) {
        events.push({ dedupKey: dedupKeys.streak(roundId), ts, body: { kind: 'streak', grid: w, length: streakLength, roundId } });
      }

      if (round.motherlode > 0) {
        events.push({ dedupKey: dedupKeys.motherlode(roundId), ts, body: { kind: 'motherlode', roundId, winningSquare: w, oreAmount: round.motherlode } });
      }

      for (let s = 0; s < SQUARES; s++) droughts[s]!++;
      droughts[w] = 0;
      window.push(round.totalDeployed);
    }

    if (roundId > 0 && roundId % settings.milestoneRoundModulus === 0) {
      events.push({
        dedupKey: dedupKeys.roundsMilestone(roundId),
        ts,
        body: { kind: 'milestone', metric: 'rounds', value: roundId, roundId },
      });
    }

    const before = cumulative;
    cumulative += BigInt(round.totalDeployed);
    // Reaching a multiple exactly counts as crossing it; one event per multiple passed.
    for (let k = before / stepLamports + 1n; k <= cumulative / stepLamports; k++) {
      const value = Number(k) * settings.deployedSolStep;
      events.push({
        dedupKey: dedupKeys.deployedSolMilestone(value),
        ts,
        body: { kind: 'milestone', metric: 'deployedSol', value, roundId },
      });
    }

    lastRoundId = roundId;
    if (roundCount !== null) roundCount++;
    return events;
  }

  function snapshot(): DeriverState {
    return {
      version: STATE_VERSION,
      lastRoundId,
      droughts: [...droughts],
      streakSquare,
      streakLength,
      recentTotals: window.values(),
      cumulativeDeployedLamports: cumulative.toString(),
      roundCount,
    };
  }

  return {
    config: settings,
    get lastRoundId() {
      return lastRoundId;
    },
    get roundCount() {
      return roundCount;
    },
    onRound,
    snapshot,
  };
}

function isCount(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

function isSquare(v: unknown): v is number {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) < SQUARES;
}

/** Rejects a round whose fields would corrupt the state, before anything changes. */
function checkRound(round: DerivableRound): void {
  const bad = (why: string): never => {
    throw new DecodeError('invalid_round', `round ${String(round.id)}: ${why}`);
  };
  if (!isCount(round.id)) bad('id is not a non-negative integer');
  if (round.winningSquare !== null && !isSquare(round.winningSquare)) bad('winningSquare is neither null nor 0..24');
  if (!isCount(round.totalDeployed)) bad('totalDeployed is not a non-negative safe integer');
  if (!isCount(round.totalMiners)) bad('totalMiners is not a non-negative safe integer');
  if (!isCount(round.motherlode)) bad('motherlode is not a non-negative safe integer');
  if (typeof round.settledAt !== 'string') bad('settledAt is not a string');
}
