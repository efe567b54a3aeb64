import { InputError } from '@gridlab/errors';
import type { Dsl } from '../dsl/types';
import { Runner } from '../engine/runner';
import type { RunnerOptions } from '../engine/types';
import type { History } from '../history/history';
import type { BacktestResult, BacktestSummary, WindowBounds } from './result';

/** SPEC 7.8: a backtest replays at most this many stored rounds. */
export const MAX_WINDOW_ROUNDS = 200_000;

/** Inclusive round-id bounds of a backtest, both optional. */
export interface BacktestWindow {
  readonly fromRoundId?: number;
  readonly toRoundId?: number;
}

/** A window as history indexes: rounds [fromIndex, endIndex). */
export interface ResolvedWindow extends WindowBounds {
  readonly fromIndex: number;
  readonly endIndex: number;
}

function invalid(path: string, message: string): InputError {
  return new InputError(`invalid backtest window: ${path} ${message}`, { errors: [{ path, message }] });
}

function checkId(value: number | undefined, path: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) throw invalid(path, 'must be a non-negative integer');
}

/**
 * SPEC 7.8 windows: without `fromRoundId`, the latest 200,000 stored rounds ending at
 * `toRoundId` (or the latest round); with it, exactly [from, to]. Throws InputError for
 * from > to, an explicit window of more than 200,000 stored rounds, or an empty one.
 */
export function resolveWindow(history: History, window: BacktestWindow = {}): ResolvedWindow {
  const { fromRoundId, toRoundId } = window;
  checkId(fromRoundId, '/fromRoundId');
  checkId(toRoundId, '/toRoundId');
  if (fromRoundId !== undefined && toRoundId !== undefined && fromRoundId > toRoundId) {
    throw invalid('/fromRoundId', `must not be greater than toRoundId (${fromRoundId} > ${toRoundId})`);
  }
  const endIndex = toRoundId === undefined ? history.length : history.lowerBound(toRoundId + 1);
  let fromIndex: number;
  if (fromRoundId === undefined) {
    fromIndex = Math.max(0, endIndex - MAX_WINDOW_ROUNDS);
  } else {
    fromIndex = history.lowerBound(fromRoundId);
    if (endIndex - fromIndex > MAX_WINDOW_ROUNDS) {
      throw invalid('/fromRoundId', `the window holds ${endIndex - fromIndex} stored rounds, more than ${MAX_WINDOW_ROUNDS}`);
    }
  }
  if (endIndex <= fromIndex) {
    const path = fromRoundId === undefined ? (toRoundId === undefined ? '/' : '/toRoundId') : '/fromRoundId';
    throw invalid(path, 'the window holds no stored round');
  }
  return { fromIndex, endIndex, firstId: history.ids[fromIndex]!, lastId: history.ids[endIndex - 1]! };
}

/** A runner that has taken every round of the window (lookback seeded from all rounds before it). */
export function runWindow(history: History, dsl: Dsl, window: ResolvedWindow, options: RunnerOptions = {}): Runner {
  const runner = new Runner(dsl, history, options);
  runner.seek(window.fromIndex);
  runner.runTo(window.endIndex);
  return runner;
}

/** The summary of a runner that has taken a whole (never empty) window. */
export function windowSummary(runner: Runner): BacktestSummary {
  const s = runner.summary();
  if (s.rangeMin === null || s.rangeMax === null || s.exitRoundId === null) throw new RangeError('the runner has taken no round');
  return { ...s, rangeMin: s.rangeMin, rangeMax: s.rangeMax, exitRoundId: s.exitRoundId };
}

/** Replays a normalized DSL over a window of `history` (SPEC 7.8). */
export function backtest(history: History, dsl: Dsl, window: BacktestWindow = {}): BacktestResult {
  const resolved = resolveWindow(history, window);
  const runner = runWindow(history, dsl, resolved, { record: true });
  try {
    return runner.result();
  } finally {
    runner.release();
  }
}
