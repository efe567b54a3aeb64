import { createPool, runMigrations } from '@gridlab/db';
import { DEFAULT_IMPORT_BATCH, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository, importRounds, type ImportProgress } from '@gridlab/rounds-store';
import type { Command } from 'commander';
import { loadCliConfig } from '../config';
import { progressReporter, type ProgressReporter } from '../progress';


/** `gridlab import <file...>`: load history from NDJSON or `/api/v1/dump` pages. */
export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      'Import settled rounds into PostgreSQL from NDJSON (one Round per line) or from JSON pages of ' +
        '/api/v1/dump (one page, an array of pages, or one page per line). Already stored rounds are ' +
        'skipped. Stops at the first invalid round unless --skip-invalid is given.',
    )
    .argument('<files...>', 'history files to import')
    .option('--skip-invalid', 'skip invalid rounds (reported on stderr) instead of stopping', false)
    .option('--batch-size <n>', 'rounds per COPY batch (1 to 100,000)', (v) => Number.parseInt(v, 10), DEFAULT_IMPORT_BATCH)
    .action(async (files: string[], opts: { skipInvalid: boolean; batchSize: number }) => {
      const config = loadCliConfig();
      await runMigrations({ databaseUrl: config.DATABASE_URL, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
      const pool = createPool(config.DATABASE_URL, { max: 2, applicationName: 'gridlab-cli' });
      const reporter = importProgress();
      try {
        const summary = await importRounds(files, new RoundRepository(pool), {
          skipInvalid: opts.skipInvalid,
          batchSize: opts.batchSize,
          onProgress: (progress) => reporter.update(progress),
          onInvalid: (where, reason) => process.stderr.write(`skipped ${where}: ${reason}\n`),
        });
        reporter.stop();
        process.stdout.write(`${JSON.stringify(summary)}\n`);
      } finally {
        reporter.stop();
        await pool.end();
      }
    });
}

/** The import's progress: bytes of the files read, rounds read and new. */
function importProgress(): ProgressReporter<ImportProgress> {
  const since = Date.now();
  return progressReporter<ImportProgress>({
    format: 'import [{bar}] {percentage}% | {read} read, {inserted} new | {rate} rounds/s | ETA {eta_formatted}',
    etaBuffer: 50,
    total: (p) => p.totalBytes,
    value: (p) => p.bytesRead,
    payload: (p) => {
      const seconds = (Date.now() - since) / 1000;
      return { read: p.read, inserted: p.inserted, rate: seconds > 0 ? Math.round(p.read / seconds) : 0 };
    },
    line: (p) => `import: ${p.totalBytes > 0 ? Math.floor((100 * p.bytesRead) / p.totalBytes) : 100}% of bytes, ${p.read} read, ${p.inserted} new`,
  });
}
