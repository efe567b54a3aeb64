import { percentile } from './stats';
import type { Bench } from './types';

const PAGE_BYTES = 4096;
const FRESH_BYTES = 128 * 1024 * 1024;
const RUNS = 3;
const LOOP_ITERATIONS = 100_000_000;

/**
 * What this machine itself costs, for reading the other figures: the first write to a
 * fresh page of memory (the kernel's fault, and on a VM the host's behind it) and a
 * plain integer loop. Both vary between machines of the same kind far more than our
 * code does between commits; a lab-backtest history of 500,000 rounds is 200 MB of
 * fresh pages, so its load time follows the first figure.
 */
const bench: Bench = async () => {
  const pageUs: number[] = [];
  const loopNs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const pages = new Uint8Array(new ArrayBuffer(FRESH_BYTES));
    let started = performance.now();
    for (let i = 0; i < pages.length; i += PAGE_BYTES) pages[i] = 1;
    pageUs.push(((performance.now() - started) * 1000) / (FRESH_BYTES / PAGE_BYTES));
    started = performance.now();
    let x = 0;
    for (let i = 0; i < LOOP_ITERATIONS; i++) x = (x * 31 + i) | 0;
    loopNs.push(((performance.now() - started) * 1e6) / LOOP_ITERATIONS);
    if (x === 0.5) throw new Error('unreachable: keeps the loop');
  }
  return [
    { key: 'machine.freshPageUs', label: 'machine: first write to a fresh 4 KiB page (median of 3)', value: percentile(pageUs, 50), unit: 'µs' },
    { key: 'machine.loopNs', label: 'machine: integer loop, one iteration (median of 3)', value: percentile(loopNs, 50), unit: 'ns' },
  ];
};

export default bench;
