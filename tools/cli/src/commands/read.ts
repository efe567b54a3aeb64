import type { LiveEv, LiveView, StrategyDsl } from '@gridlab/client';
import { LAMPORTS_PER_SOL } from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import type { Command } from 'commander';
import { apiOptions, clientFor, print, printTable, readJsonFile, roundIdOption, type ApiOptions } from '../api';

/** `gridlab live --ev` asks for the EV at most this often within a round (each ask is a request against the key's limit). */
const EV_REFRESH_MS = 2000;

/** The 5x5 board of a snapshot: SOL deployed and miners per square. */
function renderBoard(view: LiveView): string {
  const lines = [
    `round ${view.roundId}  ${view.status}${view.secondsLeft === null ? '' : `  ${Math.round(view.secondsLeft)} s left`}  ` +
      `${(view.totalDeployed / LAMPORTS_PER_SOL).toFixed(3)} SOL  ${view.totalMiners} miners${view.stale ? '  (stale)' : ''}`,
  ];
  for (let row = 0; row < 5; row++) {
    const cells: string[] = [];
    for (let col = 0; col < 5; col++) {
      const n = row * 5 + col;
      cells.push(`${String(n).padStart(2)}: ${(view.deployed[n]! / LAMPORTS_PER_SOL).toFixed(3).padStart(8)} /${String(view.count[n]).padStart(4)}`);
    }
    lines.push(cells.join('  '));
  }
  const prev = view.prevRound;
  if (prev !== null && prev !== undefined) lines.push(`previous round ${prev.id}: winning square ${prev.winningSquare ?? 'none (voided)'}`);
  return lines.join('\n');
}

/** The EV of a stake on each square, as a 5x5 table of EV per SOL staked, the best squares and what it assumes. */
function renderEv(ev: LiveEv): string {
  const sol = (lamports: number): string => (lamports / LAMPORTS_PER_SOL).toFixed(4);
  const lines = [
    `round ${ev.roundId}  ${ev.status}  ${ev.payoutRule}  stake ${sol(ev.stakeLamports)} SOL a square  ORE at ${sol(ev.orePriceLamports)} SOL (${ev.orePriceSource})` +
      `  motherlode pool ${ev.motherlodePool === null ? 'unknown' : (ev.motherlodePool / 1e11).toFixed(2)} ORE${ev.stale ? '  (stale)' : ''}`,
    'EV per SOL staked (s: the prize is split pro rata if the square wins; 1: one top miner takes it):',
  ];
  for (let row = 0; row < 5; row++) {
    const cells: string[] = [];
    for (let col = 0; col < 5; col++) {
      const s = ev.squares[row * 5 + col]!;
      const mark = s.split === null ? ' ' : s.split ? 's' : '1';
      cells.push(`${String(s.square).padStart(2)}${mark} ${(s.evPerSol >= 0 ? '+' : '') + s.evPerSol.toFixed(4)}`);
    }
    lines.push(cells.join('  '));
  }
  lines.push(`best now: ${ev.best.map((n) => `${n} (${sol(ev.squares[n]!.evLamports)} SOL)`).join(', ')}`);
  return lines.join('\n');
}

/** A SOL amount option as lamports. */
function lamportsOf(value: string, what: string): number {
  const sol = Number(value);
  const lamports = Math.round(sol * LAMPORTS_PER_SOL);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isSafeInteger(lamports)) throw new InputError(`${what} must be an amount of SOL, like 0.1`);
  return lamports;
}

/** `gridlab live`, `stats`, `backtest`, `strategies`: the API's reads, as tables or --json. */
export function registerRead(program: Command): void {
  apiOptions(
    program
      .command('live')
      .description('the board of the current round, refreshed as it changes (Ctrl-C stops); --once prints it once; --ev shows each square\'s expected value for a stake instead')
      .option('--once', 'print the current board and exit', false)
      .option('--ev', 'each square\'s EV per SOL for a stake added now, and the best squares', false)
      .option('--stake <sol>', 'with --ev: SOL added to a square (default 0.1)')
      .option('--ore-price <sol>', 'with --ev: SOL per ORE (default: the board\'s production cost)'),
  ).action(async (opts: ApiOptions & { once: boolean; ev: boolean; stake?: string; orePrice?: string }) => {
    const client = clientFor(opts);
    const evQuery = {
      ...(opts.stake === undefined ? {} : { stakeLamports: lamportsOf(opts.stake, '--stake') }),
      ...(opts.orePrice === undefined ? {} : { orePriceLamports: lamportsOf(opts.orePrice, '--ore-price') }),
    };
    const show = async (view: LiveView | null): Promise<string> => {
      if (opts.ev) {
        const ev = await client.liveEv(evQuery);
        return opts.json === true ? JSON.stringify(ev) : renderEv(ev);
      }
      return opts.json === true ? JSON.stringify(view) : renderBoard(view!);
    };
    if (opts.once) {
      process.stdout.write(`${await show(opts.ev ? null : await client.live())}\n`);
      return;
    }
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    // With --ev each redraw is a request: at most one every EV_REFRESH_MS, and on a new round.
    let shownAt = 0;
    let shownRound = -1;
    for await (const view of client.stream({ signal: stop.signal })) {
      if (opts.ev && view.roundId === shownRound && Date.now() - shownAt < EV_REFRESH_MS) continue;
      shownAt = Date.now();
      shownRound = view.roundId;
      const text = await show(view);
      if (opts.json === true) process.stdout.write(`${text}\n`);
      else process.stdout.write(`${process.stdout.isTTY ? '\x1b[2J\x1b[H' : ''}${text}\n${process.stdout.isTTY ? '' : '\n'}`);
    }
  });

  apiOptions(program.command('stats').description('whole-history statistics of the indexed rounds')).action(async (opts: ApiOptions) => {
    const stats = await clientFor(opts).stats();
    print(opts, stats, () => [
      ['rounds indexed', stats.roundsIndexed],
      ['first round', stats.firstRoundId],
      ['last round', stats.lastRoundId],
      ['SOL deployed', stats.totalDeployedSol],
      ['SOL won', stats.totalWinningsSol],
      ['effective house edge', stats.effectiveHouseEdge],
      ['  parimutuel rounds', stats.byPayoutRule.parimutuel.rounds],
      ['  returns rounds', stats.byPayoutRule.returns.rounds],
      ['  edge with ORE (returns)', stats.byPayoutRule.returns.effectiveHouseEdgeWithOre],
      ['chi-squared (24 df)', stats.chiSquared.statistic],
      ['p-value', stats.chiSquared.pValue],
      ['updated', stats.updatedAt],
    ]);
  });

  apiOptions(
    program
      .command('backtest')
      .description('replay a Strategy DSL (a JSON file) over the stored rounds')
      .argument('<dsl.json>', 'the strategy DSL')
      .option('--from <roundId>', 'first round (inclusive)', roundIdOption)
      .option('--to <roundId>', 'last round (inclusive)', roundIdOption),
  ).action(async (file: string, opts: ApiOptions & { from?: number; to?: number }) => {
    const dsl = readJsonFile(file, 'DSL file') as StrategyDsl;
    const { result } = await clientFor(opts).backtest({
      dsl,
      ...(opts.from === undefined ? {} : { fromRoundId: opts.from }),
      ...(opts.to === undefined ? {} : { toRoundId: opts.to }),
    });
    print(opts, { result }, () => [
      ['rounds', result.totalRounds],
      ['rounds bet', result.roundsBet],
      ['rounds won', result.roundsWon],
      ['win rate', result.winRate],
      ['net profit SOL', result.netProfitSol],
      ['stake SOL', result.totalStakeSol],
      ['ROI %', result.roiPercent],
      ['max drawdown SOL', result.maxDrawdownSol],
      ['longest losing streak', result.maxStreak],
    ]);
  });

  const strategies = program.command('strategies').description('Strategy Lab: your strategies and their forward tests');
  apiOptions(strategies.command('list').description('your strategies with their forward figures')).action(async (opts: ApiOptions) => {
    const list = await clientFor(opts).listStrategies();
    printTable(
      opts,
      list,
      ['id', 'name', 'active', 'created'],
      list.strategies.map((s) => [s.id, s.name, s.active, s.createdAt]),
    );
  });
  apiOptions(
    strategies
      .command('create')
      .description('create a strategy from a DSL file; forward testing starts with the next round to settle')
      .argument('<dsl.json>', 'the strategy DSL')
      .requiredOption('--name <name>', 'a name for it'),
  ).action(async (file: string, opts: ApiOptions & { name: string }) => {
    const { strategy } = await clientFor(opts).createStrategy({ name: opts.name, dsl: readJsonFile(file, 'DSL file') as StrategyDsl });
    print(opts, { strategy }, () => [
      ['id', strategy.id],
      ['name', strategy.name],
      ['active', strategy.active],
      ['created', strategy.createdAt],
    ]);
  });
  apiOptions(strategies.command('forward').description("a strategy's forward-test figures").argument('<id>', 'strategy id (stg_...)')).action(
    async (id: string, opts: ApiOptions) => {
      const f = await clientFor(opts).forward(id);
      print(opts, f, () => [
        ['strategy', f.strategyId],
        ['active', f.active],
        ['rounds settled', f.roundsSettled],
        ['rounds bet', f.roundsBet],
        ['rounds won', f.roundsWon],
        ['win rate', f.winRate],
        ['net profit SOL', f.netProfitSol],
        ['ROI %', f.roiPercent],
        ['max drawdown SOL', f.maxDrawdownSol],
        ['pending', f.pendingCount],
        ['late', f.lateCount],
      ]);
    },
  );
}

