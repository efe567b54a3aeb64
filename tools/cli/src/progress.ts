import { Presets, SingleBar } from 'cli-progress';

/** How often, at most, a progress line is written when stderr is not a terminal. */
const PLAIN_PROGRESS_MS = 2000;

export interface ProgressReporter<P> {
  update(progress: P): void;
  stop(): void;
}

/** How a long command shows its progress: as a bar on a terminal, as a line otherwise. */
export interface ProgressView<P> {
  /** cli-progress format, its placeholders filled by `payload`. */
  readonly format: string;
  readonly etaBuffer: number;
  /** The bar's total and value. */
  total(progress: P): number;
  value(progress: P): number;
  payload(progress: P): Record<string, number>;
  /** The plain line (off a terminal). */
  line(progress: P): string;
  /** True when the line must be written at once (the last one). */
  final?(progress: P): boolean;
}

/** A progress bar on a terminal; a line every few seconds on stderr otherwise. */
export function progressReporter<P>(view: ProgressView<P>): ProgressReporter<P> {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: view.format, stream: process.stderr, etaBuffer: view.etaBuffer }, Presets.shades_classic);
    let started = false;
    return {
      update: (p) => {
        if (!started) bar.start(view.total(p), 0, view.payload(p));
        started = true;
        bar.update(view.value(p), view.payload(p));
      },
      stop: () => {
        if (started) bar.stop();
        started = false;
      },
    };
  }
  let last = 0;
  return {
    update: (p) => {
      const now = Date.now();
      if (now - last < PLAIN_PROGRESS_MS && view.final?.(p) !== true) return;
      last = now;
      process.stderr.write(`${view.line(p)}\n`);
    },
    stop: () => undefined,
  };
}
