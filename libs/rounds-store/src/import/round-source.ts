import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

/** One candidate round from a file, with where it came from for error messages. */
export interface SourceItem {
  readonly value: unknown;
  readonly where: string;
}

const READ_CHUNK = 1 << 20;

/**
 * Yields every round-like value of a history file, streaming. Accepted shapes:
 * NDJSON of Round objects; NDJSON of `/api/v1/dump` pages; one page or an array of
 * pages (or of rounds) on one line; and the same as a pretty-printed JSON document
 * (read whole, since it cannot be split by lines). `onBytes` reports progress.
 */
export async function* readRoundSource(path: string, onBytes?: (bytes: number) => void): AsyncGenerator<SourceItem> {
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK });
  if (onBytes) stream.on('data', (chunk) => onBytes(chunk.length));
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (lineNo === 1 && /^\s*[[{]\s*$/.test(line)) {
        // A pretty-printed document: its first line is a lone bracket.
        lines.close();
        stream.destroy();
        yield* expand(JSON.parse(await readFile(path, 'utf8')) as unknown, path);
        return;
      }
      yield { value: undefined, where: `${path}:${lineNo}: not valid JSON` };
      continue;
    }
    yield* expand(parsed, `${path}:${lineNo}`);
  }
}

/** A dump page contributes its rounds; an array contributes its elements; anything else is a round. */
function* expand(value: unknown, where: string): Generator<SourceItem> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* expand(value[i], `${where}[${i}]`);
    return;
  }
  if (isPage(value)) {
    const rounds = value.rounds;
    for (let i = 0; i < rounds.length; i++) yield { value: rounds[i], where: `${where} rounds[${i}]` };
    return;
  }
  yield { value, where };
}

function isPage(value: unknown): value is { rounds: unknown[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { rounds?: unknown }).rounds);
}
