import type { LiveView, StrategyDsl } from '@gridlab/client';
import type { Command } from 'commander';
import { apiOptions, clientFor, print, printTable, readJsonFile, roundIdOption, type ApiOptions } from '../api';

const LAMPORTS_PER_SOL = 1_000_000_000;

/** The 5x5 board of a snapshot: SOL deployed and miners per square. */
export function renderBoard(view: LiveView): string {
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

/** `gridlab live`, `stats`, `backtest`, `strategies`: the API's reads, as tables or --json. */
export function registerRead(program: Command): void {
  apiOptions(
    program
      .command('live')
      .description('the board of the current round, refreshed as it changes (Ctrl-C stops); --once prints it once')
      .option('--once', 'print the current board and exit', false),
  ).action(async (opts: ApiOptions & { once: boolean }) => {
    const client = clientFor(opts);
    if (opts.once) {
      const view = await client.live();
      process.stdout.write(opts.json === true ? `${JSON.stringify(view)}\n` : `${renderBoard(view)}\n`);
      return;
    }
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    for await (const view of client.stream({ signal: stop.signal })) {
      if (opts.json === true) process.stdout.write(`${JSON.stringify(view)}\n`);
      else process.stdout.write(`${process.stdout.isTTY ? '\x1b[2J\x1b[H' : ''}${renderBoard(view)}\n${process.stdout.isTTY ? '' : '\n'}`);
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

