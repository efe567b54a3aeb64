import { open, readFile } from 'node:fs/promises';

/**
 * One candidate round from a file. `where` says where it came from for error messages;
 * it is a function because it is needed only for the rare invalid round, and building
 * a string per round costs an import measurable time in allocation alone.
 */
export interface SourceItem {
  readonly value: unknown;
  readonly where: () => string;
}

const READ_CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Whole lines of a history file as bytes: line i spans `data[bounds[2i], bounds[2i + 1])`
 * (without its newline) and is line `firstLine + i` of the file; `data` holds them until
 * the next chunk is read into it. A pretty-printed
 * document, read whole, comes as one chunk of `items` and no lines.
 */
export interface SourceChunk {
  readonly data: Buffer;
  readonly bounds: readonly number[];
  readonly firstLine: number;
  readonly items: readonly SourceItem[];
}

/**
 * Yields a history file's lines in chunks of ~1 MiB, undecoded: most lines of a history
 * are read straight from their bytes (see CanonicalRoundReader), any other goes to
 * `parseLine`. Accepted shapes: NDJSON of Round objects; NDJSON of `/api/v1/dump` pages;
 * one page or an array of pages (or of rounds) on one line; and the same as a
 * pretty-printed JSON document (read whole, since it cannot be split by lines).
 * `onBytes` reports progress. The file is read into one buffer, reused (a chunk's `data`
 * holds until the next chunk is asked for), so a history of any size allocates no more.
 */
export async function* readRoundSource(path: string, onBytes?: (bytes: number) => void): AsyncGenerator<SourceChunk> {
  const file = await open(path, 'r');
  try {
    let data = Buffer.allocUnsafe(READ_CHUNK);
    // Bytes of `data` read and not yet yielded: the start of a line whose end is still to come.
    let filled = 0;
    let lineNo = 0;
    for (;;) {
      if (filled === data.length) {
        // A line longer than the buffer (a dump page on one line): make room for it.
        const larger = Buffer.allocUnsafe(data.length * 2);
        data.copy(larger, 0, 0, filled);
        data = larger;
      }
      const { bytesRead } = await file.read(data, filled, data.length - filled, null);
      if (bytesRead === 0) break;
      onBytes?.(bytesRead);
      const searchFrom = filled;
      filled += bytesRead;
      const end = data.lastIndexOf(NEWLINE, filled - 1);
      if (end < searchFrom) continue;
      const firstLine = lineNo + 1;
      const bounds: number[] = [];
      for (let start = 0, nl = data.indexOf(NEWLINE); nl >= 0 && nl <= end; start = nl + 1, nl = data.indexOf(NEWLINE, start)) {
        bounds.push(start, nl);
        lineNo++;
        // A pretty-printed document: its first line is a lone bracket.
        if (lineNo === 1 && /^\s*[[{]\s*$/.test(data.toString('utf8', start, nl))) {
          yield { data, bounds: [], firstLine, items: [...expand(JSON.parse(await readFile(path, 'utf8')) as unknown, () => path)] };
          return;
        }
      }
      yield { data, bounds, firstLine, items: [] };
      data.copyWithin(0, end + 1, filled);
      filled -= end + 1;
    }
    if (filled > 0) yield { data, bounds: [0, filled], firstLine: lineNo + 1, items: [] };
  } finally {
    await file.close();
  }
}

/** Parses one line of a history file into candidate rounds (a round, a page, an array). */
export function parseLine(line: string, path: string, lineNo: number, into: SourceItem[]): void {
  if (line.trim() === '') return;
  const where = (): string => `${path}:${lineNo}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    into.push({ value: undefined, where: () => `${where()}: not valid JSON` });
    return;
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && !isPage(parsed)) {
    into.push({ value: parsed, where }); // the common case: one round per line
    return;
  }
  for (const item of expand(parsed, where)) into.push(item);
}

/** A dump page contributes its rounds; an array contributes its elements; anything else is a round. */
function* expand(value: unknown, where: () => string): Generator<SourceItem> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* expand(value[i], () => `${where()}[${i}]`);
    return;
  }
  if (isPage(value)) {
    const rounds = value.rounds;
    for (let i = 0; i < rounds.length; i++) yield { value: rounds[i], where: () => `${where()} rounds[${i}]` };
    return;
  }
  yield { value, where };
}

function isPage(value: unknown): value is { rounds: unknown[] } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { rounds?: unknown }).rounds);
}
