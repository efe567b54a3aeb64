import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

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
 * Yields the round-like values of a history file in arrays (one per ~1 MiB read), so
 * the per-round cost is a JSON.parse and nothing else. Accepted shapes: NDJSON of
 * Round objects; NDJSON of `/api/v1/dump` pages; one page or an array of pages (or of
 * rounds) on one line; and the same as a pretty-printed JSON document (read whole,
 * since it cannot be split by lines). `onBytes` reports progress.
 */
export async function* readRoundSource(path: string, onBytes?: (bytes: number) => void): AsyncGenerator<SourceItem[]> {
  let carry: Buffer = Buffer.alloc(0);
  let lineNo = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: READ_CHUNK }) as AsyncIterable<Buffer>) {
    onBytes?.(chunk.length);
    const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const end = data.lastIndexOf(NEWLINE);
    if (end < 0) {
      carry = data;
      continue;
    }
    carry = data.subarray(end + 1);
    const items: SourceItem[] = [];
    // One decode per chunk (up to its last newline, a character boundary); lines are then
    // slices of that string, which cost no copy (a decode per line costs a native call each).
    const text = data.toString('utf8', 0, end + 1);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl);
      start = nl + 1;
      lineNo++;
      if (lineNo === 1 && /^\s*[[{]\s*$/.test(line)) {
        // A pretty-printed document: its first line is a lone bracket.
        yield [...expand(JSON.parse(await readFile(path, 'utf8')) as unknown, () => path)];
        return;
      }
      parseLine(line, path, lineNo, items);
    }
    yield items;
  }
  if (carry.length > 0) {
    const items: SourceItem[] = [];
    parseLine(carry.toString('utf8'), path, lineNo + 1, items);
    yield items;
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
