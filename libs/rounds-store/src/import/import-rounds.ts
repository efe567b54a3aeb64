import { stat } from 'node:fs/promises';
import { validateRound, type Round } from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import type { RoundRepository } from '../round.repository';
import { completeLegacyRound } from './legacy-round';
import { readRoundSource } from './round-source';

export interface ImportProgress {
  readonly read: number;
  readonly inserted: number;
  readonly invalid: number;
  readonly bytesRead: number;
  readonly totalBytes: number;
}

export interface ImportSummary {
  readonly read: number;
  readonly inserted: number;
  readonly duplicates: number;
  readonly invalid: number;
  readonly seconds: number;
  readonly roundsPerSecond: number;
}

export interface ImportOptions {
  /** Skip (and count) invalid rounds instead of aborting at the first one. */
  readonly skipInvalid?: boolean;
  readonly batchSize?: number;
  readonly onProgress?: (progress: ImportProgress) => void;
  /** Called for each skipped invalid round (when skipInvalid). */
  readonly onInvalid?: (where: string, reason: string) => void;
  readonly now?: () => number;
}

const DEFAULT_BATCH = 10_000;
const YIELD_EVERY = 50;

/**
 * Loads history files into the rounds table: validated (a round of an older dump, without
 * the payout rule and ORE fields, is completed first: see completeLegacyRound), in COPY
 * batches, idempotent
 * (stored ids are counted as duplicates). Parsing of the next batch overlaps the
 * database's work on the previous one. Imported rounds are not published to NATS:
 * consumers catch up from PostgreSQL, the source of truth.
 */
export async function importRounds(paths: readonly string[], repo: RoundRepository, options: ImportOptions = {}): Promise<ImportSummary> {
  const now = options.now ?? Date.now;
  const started = now();
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  let totalBytes = 0;
  for (const path of paths) totalBytes += (await stat(path)).size;
  let read = 0;
  let inserted = 0;
  let invalid = 0;
  let bytesRead = 0;
  let batch: Round[] = [];
  let inFlight: Promise<void> = Promise.resolve();
  const progress = (): void => options.onProgress?.({ read, inserted, invalid, bytesRead, totalBytes });

  const flush = async (): Promise<void> => {
    const rounds = batch;
    batch = [];
    await inFlight;
    inFlight = repo.insertMany(rounds).then((n) => {
      inserted += n;
      progress();
    });
  };

  for (const path of paths) {
    for await (const items of readRoundSource(path, (b) => (bytesRead += b))) {
     for (const item of items) {
      read++;
      let round: Round;
      try {
        if (item.value === undefined) throw new InputError('not valid JSON');
        round = validateRound(completeLegacyRound(item.value));
      } catch (error) {
        const reason = error instanceof Error ? error.message : 'invalid';
        if (!options.skipInvalid) {
          await inFlight;
          throw new InputError(`${item.where()}: ${reason}`, { cause: error });
        }
        invalid++;
        options.onInvalid?.(item.where(), reason);
        continue;
      }
      batch.push(round);
      if (batch.length >= batchSize) await flush();
      // Parsing is synchronous: give the event loop a turn now and then, so the
      // database's replies for the batch in flight are handled while we parse
      // (otherwise each of its round trips waits for a whole chunk to be parsed).
      else if (read % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
     }
    }
  }
  if (batch.length > 0) await flush();
  await inFlight;
  progress();
  const seconds = (now() - started) / 1000;
  const valid = read - invalid;
  return {
    read,
    inserted,
    duplicates: valid - inserted,
    invalid,
    seconds,
    roundsPerSecond: seconds > 0 ? Math.round(valid / seconds) : valid,
  };
}
