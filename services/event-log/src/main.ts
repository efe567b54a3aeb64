/**
 * The event-log service process. For now it connects to its dependencies and serves its
 * operations endpoints; its business logic arrives with its own issue.
 */
import { startPlatform } from '@gridlab/platform';
import { loadServiceConfig } from './config';

async function main(): Promise<void> {
  const config = loadServiceConfig(process.env);
  await startPlatform('event-log', config, { ops: { host: config.OPS_HOST, port: config.OPS_PORT }, poolSize: 2 });
}

main().catch((error: unknown) => {
  process.stderr.write(`event-log: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
