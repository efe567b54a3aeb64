import { stat } from 'node:fs/promises';
import { roundSchema, validatorOf, type Round } from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import type { RoundRepository } from '../round.repository';
import { completeLegacyRound } from './legacy-round';
import { RoundBatch, RoundRow } from '../round-batch';
import { CanonicalRoundReader } from './canonical-round';
import { parseLine, readRoundSource, type SourceItem } from './round-source';

/** An imported line is a round as `/dump` writes it. */
const validateRound = validatorOf(roundSchema);

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

/** Rounds per COPY batch unless told otherwise. */
export const DEFAULT_IMPORT_BATCH = 25_000;
const FIRST_BATCH_SHARE = 10;
/** Two batches are held at a time, about 1 KB a round each. */
const MAX_BATCH = 100_000;
const YIELD_EVERY = 50;

/**
 * Loads history files into the rounds table: validated (a round of an older dump, without
 * the payout rule and ORE fields, is completed first: see completeLegacyRound), in COPY
 * batches, idempotent (stored ids are counted as duplicates). A line in the shape
 * `/api/v1/dump` writes goes from its bytes to its COPY tuple (CanonicalRoundReader); any
 * other is parsed and checked against the round schema. Reading the next batch overlaps
 * the database's work on the previous one. Imported rounds are not published to NATS:
 * consumers catch up from PostgreSQL, the source of truth.
 */
export async function importRounds(paths: readonly string[], repo: RoundRepository, options: ImportOptions = {}): Promise<ImportSummary> {
  const now = options.now ?? Date.now;
  const started = now();
  const batchSize = options.batchSize ?? DEFAULT_IMPORT_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
    throw new InputError(`the batch size must be a whole number from 1 to ${MAX_BATCH.toLocaleString('en')}`);
  }
  let totalBytes = 0;
  for (const path of paths) totalBytes += (await stat(path)).size;
  let read = 0;
  let inserted = 0;
  let invalid = 0;
  let bytesRead = 0;
  // Two batches in turn: one filling while the other is in the database.
  let batch = new RoundBatch(batchSize);
  let spare = new RoundBatch(batchSize);
  let inFlight: Promise<void> = Promise.resolve();
  const progress = (): void => options.onProgress?.({ read, inserted, invalid, bytesRead, totalBytes });
  const reader = new CanonicalRoundReader();
  const row = new RoundRow();
  const items: SourceItem[] = [];
  // The first batch is a tenth of the rest, so the database starts work early.
  let limit = Math.ceil(batchSize / FIRST_BATCH_SHARE);

  const flush = async (): Promise<void> => {
    const full = batch;
    await inFlight;
    batch = spare;
    batch.clear();
    spare = full;
    inFlight = repo.insertBatch(full).then((n) => {
      inserted += n;
      progress();
    });
  };
  // Parsing is synchronous: give the event loop a turn now and then, so the database's
  // replies for the batch in flight are handled while we parse (otherwise each of its
  // round trips waits for a whole chunk to be parsed).
  const pushRow = (): Promise<void> | undefined => {
    batch.push(row);
    if (batch.length >= limit) {
      limit = batchSize;
      return flush();
    }
    return read % YIELD_EVERY === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
  };
  const accept = async (item: SourceItem): Promise<void> => {
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
      return;
    }
    row.setRound(round);
    await pushRow();
  };

  for (const path of paths) {
    for await (const chunk of readRoundSource(path, (b) => (bytesRead += b))) {
      const { data, bounds } = chunk;
      for (let i = 0; i < bounds.length; i += 2) {
        if (reader.read(data, bounds[i]!, bounds[i + 1]!, row)) {
          read++;
          const turn = pushRow();
          if (turn !== undefined) await turn;
          continue;
        }
        items.length = 0;
        parseLine(data.toString('utf8', bounds[i], bounds[i + 1]), path, chunk.firstLine + i / 2, items);
        for (const item of items) await accept(item);
      }
      for (const item of chunk.items) await accept(item);
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
