import { History, SQUARES, type RoundInput } from '@gridlab/strategy';

type Column = Float64Array | Int8Array | Uint8Array | Uint32Array;

/** The typed-array columns of a History, by name: element size, width, and a view over a buffer. */
const COLUMNS = {
  ids: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  winning: [1, 1, (b: SharedArrayBuffer) => new Int8Array(b)],
  deployed: [8, SQUARES, (b: SharedArrayBuffer) => new Float64Array(b)],
  count: [4, SQUARES, (b: SharedArrayBuffer) => new Uint32Array(b)],
  totalDeployed: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  totalWinnings: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  totalMiners: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  sumDeployed: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  winnerDeployed: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  ordinals: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  rule: [1, 1, (b: SharedArrayBuffer) => new Uint8Array(b)],
  oreReward: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  motherlode: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  split: [1, 1, (b: SharedArrayBuffer) => new Uint8Array(b)],
  productionCost: [8, 1, (b: SharedArrayBuffer) => new Float64Array(b)],
  drawHi: [4, 1, (b: SharedArrayBuffer) => new Uint32Array(b)],
  drawLo: [4, 1, (b: SharedArrayBuffer) => new Uint32Array(b)],
} as const satisfies Record<string, readonly [number, number, (b: SharedArrayBuffer) => Column]>;

type ColumnName = keyof typeof COLUMNS;
const COLUMN_NAMES = Object.keys(COLUMNS) as ColumnName[];

/** Growth beyond what is needed, so rounds arriving one a minute rarely reallocate. */
const MIN_HEADROOM = 16_384;

/**
 * The column buffers of a history, shared with worker threads (structured clone passes
 * a SharedArrayBuffer by reference). `generation` changes when the history is rebuilt
 * from scratch, so a worker knows to drop what it derived from the old one.
 */
export interface HistoryBuffers {
  readonly generation: number;
  readonly capacity: number;
  readonly columns: Readonly<Record<ColumnName, SharedArrayBuffer>>;
}

function allocate(capacity: number, generation: number): HistoryBuffers {
  const columns = {} as Record<ColumnName, SharedArrayBuffer>;
  for (const name of COLUMN_NAMES) {
    const [bytes, width] = COLUMNS[name];
    // Fresh pages are zero and untouched: headroom costs address space, not memory.
    columns[name] = new SharedArrayBuffer(capacity * width * bytes);
  }
  return { generation, capacity, columns };
}

/** Points `history`'s columns at `buffers` (its length is left as it is). */
export function attachBuffers(history: History, buffers: HistoryBuffers): void {
  const h = history as unknown as Record<ColumnName, Column>;
  for (const name of COLUMN_NAMES) h[name] = COLUMNS[name][2](buffers.columns[name]);
}

/**
 * Makes the first `length` stored rounds visible (a reader's view of a history another
 * thread appends to: rounds below `length` never change once written).
 */
export function setVisibleLength(history: History, length: number): void {
  if (!(Number.isInteger(length) && length >= 0 && length <= history.capacity)) throw new RangeError(`length ${length} outside 0..${history.capacity}`);
  history.length = length;
  history.settledCount = length === 0 ? 0 : history.ordinals[length - 1]! + (history.winning[length - 1]! >= 0 ? 1 : 0);
}

/** A reader's History over shared buffers, showing `length` rounds. */
export function historyView(buffers: HistoryBuffers, length: number): History {
  const history = new History(1);
  attachBuffers(history, buffers);
  setVisibleLength(history, length);
  return history;
}

/**
 * The one writer of a History kept in SharedArrayBuffers. Rounds are appended through
 * History.append (same checks and derived columns as anywhere else); capacity grows
 * here, into new shared buffers, before History would grow into private ones, and
 * `onGrow` announces every new set so readers can follow. A rebuild is a new
 * SharedHistory with the next generation.
 */
export class SharedHistory {
  private buffers: HistoryBuffers;
  readonly history: History;
  /** Called with the new buffers whenever the capacity grows. */
  onGrow: (buffers: HistoryBuffers) => void = () => undefined;

  constructor(capacity: number, generation = 1) {
    this.history = new History(1);
    this.buffers = allocate(Math.max(1, capacity), generation);
    attachBuffers(this.history, this.buffers);
  }

  get buffersNow(): HistoryBuffers {
    return this.buffers;
  }

  get generation(): number {
    return this.buffers.generation;
  }

  get length(): number {
    return this.history.length;
  }

  get lastId(): number | null {
    return this.history.lastId;
  }

  /** Makes room for `extra` more rounds, growing into new shared buffers when needed. */
  reserve(extra: number): void {
    const needed = this.history.length + extra;
    if (needed <= this.buffers.capacity) return;
    const capacity = Math.max(needed + MIN_HEADROOM, Math.floor(this.buffers.capacity * 1.5));
    const next = allocate(capacity, this.buffers.generation);
    const h = this.history as unknown as Record<ColumnName, Column>;
    for (const name of COLUMN_NAMES) {
      const [, width, view] = COLUMNS[name];
      view(next.columns[name]).set(h[name].subarray(0, this.history.length * width));
    }
    this.buffers = next;
    attachBuffers(this.history, next);
    this.onGrow(next);
  }

  /** Forgets every round (a load that must start over); readers must not be looking yet. */
  clear(): void {
    setVisibleLength(this.history, 0);
  }

  /** Appends one round (ids must increase; History.append's checks apply). */
  append(round: RoundInput): void {
    this.reserve(1);
    this.history.append(round);
  }
}
