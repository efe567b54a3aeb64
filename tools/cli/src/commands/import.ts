import { createPool, runMigrations } from '@gridlab/db';
import { DEFAULT_IMPORT_BATCH, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository, importRounds, type ImportProgress } from '@gridlab/rounds-store';
import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import { loadCliConfig } from '../config';

const PLAIN_PROGRESS_MS = 2000;

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
      const reporter = progressReporter();
      try {
        const summary = await importRounds(files, new RoundRepository(pool), {
          skipInvalid: opts.skipInvalid,
          batchSize: opts.batchSize,
          onProgress: reporter.update,
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

/** A progress bar on a terminal; a line every few seconds on stderr otherwise. */
function progressReporter(): { update: (p: ImportProgress) => void; stop: () => void } {
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      { format: 'import [{bar}] {percentage}% | {read} read, {inserted} new | {rate} rounds/s | ETA {eta_formatted}', stream: process.stderr, etaBuffer: 50 },
      Presets.shades_classic,
    );
    let started = false;
    const since = Date.now();
    return {
      update: (p) => {
        if (!started) bar.start(p.totalBytes, 0, { read: 0, inserted: 0, rate: 0 });
        started = true;
        const seconds = (Date.now() - since) / 1000;
        bar.update(p.bytesRead, { read: p.read, inserted: p.inserted, rate: seconds > 0 ? Math.round(p.read / seconds) : 0 });
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
      if (now - last < PLAIN_PROGRESS_MS) return;
      last = now;
      const pct = p.totalBytes > 0 ? Math.floor((100 * p.bytesRead) / p.totalBytes) : 100;
      process.stderr.write(`import: ${pct}% of bytes, ${p.read} read, ${p.inserted} new\n`);
    },
    stop: () => undefined,
  };
}
