/**
 * JSON text from the RPC as bytes, parsed: the same values `JSON.parse` gives for the
 * UTF-8 text. A batch answer (a top-level array) is cut into its items, each decoded and
 * parsed alone: a batch of transactions is a few hundred kilobytes, and V8 takes several
 * times longer to make one string that long than a hundred short ones.
 */
import { isAscii } from 'node:buffer';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Parses UTF-8 JSON text (after a byte order mark, as fetch's `json()` does); throws a SyntaxError where `JSON.parse` would. */
export function parseJsonBytes(data: Buffer): unknown {
  const bytes = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? data.subarray(3) : data;
  const items = topLevelItems(bytes);
  if (items === null) return JSON.parse(text(bytes, 0, bytes.length));
  const out = new Array<unknown>(items.length / 2);
  for (let k = 0; k < items.length; k += 2) out[k / 2] = JSON.parse(text(bytes, items[k]!, items[k + 1]!));
  return out;
}

/** Text of bytes[start, end): ASCII (the chain's JSON is, but for user text) copied as Latin-1. */
function text(bytes: Buffer, start: number, end: number): string {
  return bytes.toString(isAscii(bytes.subarray(start, end)) ? 'latin1' : 'utf8', start, end);
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Where the items of a top-level array are, as [start, end) pairs, or null when `bytes`
 * is not one nonempty array framed as JSON (the caller then parses it whole, so malformed
 * text fails as `JSON.parse` fails). Only the framing is checked here: every item is
 * parsed alone, which checks the rest.
 */
function topLevelItems(bytes: Buffer): number[] | null {
  const n = bytes.length;
  let i = 0;
  while (isSpace(bytes[i])) i++;
  if (bytes[i] !== OPEN_ARRAY) return null;
  const items: number[] = [];
  let depth = 0;
  let start = i + 1;
  for (; i < n; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      // To the closing quote, one after an even run of backslashes; the bytes between are skipped by memchr.
      for (;;) {
        const q = bytes.indexOf(QUOTE, i + 1);
        if (q === -1) return null;
        let k = q - 1;
        while (bytes[k] === BACKSLASH) k--;
        i = q;
        if ((q - 1 - k) % 2 === 0) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (--depth > 0) continue;
      if (c !== CLOSE_ARRAY) return null;
      items.push(start, i);
      for (i++; i < n; i++) if (!isSpace(bytes[i])) return null;
      // `[]` and `[ ]`: no item to parse.
      return items.length === 2 && isBlank(bytes, start, items[1]!) ? null : items;
    } else if (c === COMMA && depth === 1) {
      items.push(start, i);
      start = i + 1;
    }
  }
  return null;
}

function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isSpace(bytes[i])) return false;
  return true;
}
