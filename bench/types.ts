/** One measured figure of `make bench`. */
export interface BenchFigure {
  /** Stable key in bench/results.json, e.g. `import.roundsPerSecond`. */
  readonly key: string;
  readonly label: string;
  readonly value: number;
  readonly unit: string;
  /** Human-readable target from SPEC 8, e.g. `>= 100000`. */
  readonly target?: string;
  /** Whether the figure meets its target (absent when there is none). */
  readonly met?: boolean;
}

/**
 * A benchmark module: `bench/<name>.bench.ts` default-exports one of these. It sets up
 * what it needs (its own database, NATS prefix, devnet), measures, cleans up.
 */
export type Bench = () => Promise<readonly BenchFigure[]>;
