/**
 * `gridlab`: the operator's command line (`pnpm -s gridlab <command>`).
 * Each command lives in commands/ and registers itself here.
 */
import { isGridlabError } from '@gridlab/errors';
import { Command, CommanderError } from 'commander';
import { registerAdmin } from './commands/admin';
import { registerAlerts } from './commands/alerts';
import { registerApi } from './commands/api';
import { registerBackfill } from './commands/backfill';
import { registerDevnet } from './commands/devnet';
import { registerImport } from './commands/import';
import { registerMiners } from './commands/miners';
import { registerRead } from './commands/read';
import { registerWallet } from './commands/wallet';

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

const program = new Command('gridlab')
  .description('Gridlab commands: API users (live, stats, miner, miners, backtest, strategies, alerts, api), subscribers (keygen, subscribe, reissue), operators (import, backfill, admin), devnet helpers')
  .showHelpAfterError()
  .exitOverride();

registerImport(program);
registerBackfill(program);
registerAdmin(program);
registerWallet(program);
registerRead(program);
registerMiners(program);
registerAlerts(program);
registerApi(program);
registerDevnet(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
  }
  const message = isGridlabError(error) || error instanceof Error ? error.message : String(error);
  process.stderr.write(`gridlab: ${message}\n`);
  process.exit(isGridlabError(error) && error.kind === 'input' ? EXIT_USAGE : EXIT_FAILURE);
});
