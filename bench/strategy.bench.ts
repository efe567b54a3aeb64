import { join } from 'node:path';
import { measureInLabProcess } from './lab-process';
import type { Bench } from './types';

/**
 * Strategy engine (bench/strategy-replay.ts): replays against a bare payout loop, and
 * analytics, compiled as production compiles the engine and run in a process set up as
 * lab-backtest's, whose worker threads run that code.
 */
const bench: Bench = () => measureInLabProcess(join(__dirname, 'strategy-replay.ts'));

export default bench;
