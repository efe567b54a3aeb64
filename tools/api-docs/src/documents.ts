/**
 * The OpenAPI and AsyncAPI documents, written from @gridlab/contracts: each wire shape is
 * defined once there (a TypeBox schema: the JSON Schema ajv checks and the TypeScript
 * type), and so is each HTTP operation (the table `API`). The OpenAPI document's paths,
 * tags, security schemes, shared responses and schemas are generated (./openapi.ts); its
 * `info` and `servers` are written by hand. The AsyncAPI document's channels, operations,
 * messages and schemas are generated from the NATS table (./asyncapi.ts); its `info` and
 * `servers` are written by hand. `$ref`s between schemas become
 * `#/components/schemas/<name>`.
 */
import { dslSchema } from '@gridlab/strategy';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scalar, isMap, isScalar, parseDocument, visit, type Document } from 'yaml';
import { asyncApiParts } from './asyncapi';
import { openApiParts } from './openapi';
import { components } from './schemas';

export { components };

const ROOT = join(__dirname, '..', '..', '..');
export const OPENAPI_PATH = join(ROOT, 'services/api-gateway/openapi/openapi.yaml');
export const ASYNCAPI_PATH = join(ROOT, 'docs/asyncapi.yaml');

const SCHEMAS_NOTE = ' Generated from libs/contracts by `pnpm -s generate` (tools/api-docs): edit the contracts, not these.';
const TABLE_NOTE = ' Generated from the operation table in libs/contracts/src/api by `pnpm -s generate` (tools/api-docs): declare operations there.';
const BUS_NOTE = ' Generated from the NATS table in libs/contracts/src/bus by `pnpm -s generate` (tools/api-docs): declare commands and events there.';

/** The text without the notes (where the parser attaches a comment depends on what surrounds it). */
function parseWithoutNote(text: string): Document {
  const notes = new Set([`#${SCHEMAS_NOTE}`, `#${TABLE_NOTE}`, `#${BUS_NOTE}`]);
  return parseDocument(text.split('\n').filter((line) => !notes.has(line.trim())).join('\n'));
}

/** A node for `value`: short maps and lists on one line, as a reader of the document would write them. */
function compactNode(document: Document, value: unknown): ReturnType<Document['createNode']> {
  const node = document.createNode(value);
  visit(node, {
    Map(_, map) {
      if (JSON.stringify(map.toJSON()).length <= 90) map.flow = true;
    },
    Seq(_, seq) {
      if (JSON.stringify(seq.toJSON()).length <= 90) seq.flow = true;
    },
  });
  return node;
}

/** Sets `path` (one or two keys) to `value`; a new key goes before `before`, if given; `note` is written above the key. */
function setGenerated(document: Document, path: readonly string[], value: unknown, options: { before?: string; note?: string } = {}): void {
  const node = compactNode(document, value);
  const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
  if (!isMap(parent)) throw new Error(`the document has no ${path.slice(0, -1).join('.')}`);
  const key = path[path.length - 1]!;
  const keyOf = (p: { key: unknown }): unknown => (isScalar(p.key) ? p.key.value : p.key);
  let pair = parent.items.find((p) => keyOf(p) === key);
  if (pair === undefined) {
    const at = options.before === undefined ? -1 : parent.items.findIndex((p) => keyOf(p) === options.before);
    parent.set(key, node);
    pair = parent.items.find((p) => keyOf(p) === key)!;
    if (at !== -1) parent.items.splice(at, 0, parent.items.splice(parent.items.indexOf(pair), 1)[0]!);
  } else pair.value = node;
  if (options.note !== undefined) {
    const scalar = isScalar(pair.key) ? pair.key : new Scalar(pair.key);
    scalar.commentBefore = options.note;
    pair.key = scalar;
  }
}

/**
 * The OpenAPI document as it should be: the hand-written `openapi`, `info` and `servers`;
 * everything else from the operation table and the contracts' schemas.
 */
export function openApiText(current = readFileSync(OPENAPI_PATH, 'utf8')): string {
  const document = parseWithoutNote(current);
  const generated = openApiParts();
  setGenerated(document, ['security'], generated.security, { before: 'paths' });
  setGenerated(document, ['tags'], generated.tags, { before: 'paths' });
  setGenerated(document, ['paths'], generated.paths, { before: 'components', note: TABLE_NOTE });
  setGenerated(document, ['components', 'securitySchemes'], generated.securitySchemes, { note: TABLE_NOTE });
  setGenerated(document, ['components', 'x-rate-limit-headers'], generated.rateLimitHeaders);
  setGenerated(document, ['components', 'responses'], generated.responses);
  setGenerated(document, ['components', 'schemas'], generated.schemas, { note: SCHEMAS_NOTE });
  // No folding: long descriptions stay on one line each.
  return document.toString({ lineWidth: 0 });
}

/**
 * The AsyncAPI document as it should be: the hand-written `asyncapi`, `info`, `servers`
 * and `defaultContentType`; its channels, operations and messages from the NATS table,
 * every message's payload a reference to its contract's schema.
 */
export function asyncApiText(current = readFileSync(ASYNCAPI_PATH, 'utf8')): string {
  const document = parseWithoutNote(current);
  const generated = asyncApiParts();
  setGenerated(document, ['channels'], generated.channels, { before: 'components', note: BUS_NOTE });
  setGenerated(document, ['operations'], generated.operations, { before: 'components' });
  setGenerated(document, ['components', 'messages'], generated.messages, { note: BUS_NOTE });
  // The bus carries a DSL as any object (lab-backtest and lab-forward check it); the document details it.
  setGenerated(document, ['components', 'schemas'], components({ ...generated.payloads, StrategyDsl: dslSchema }), { note: SCHEMAS_NOTE });
  return document.toString({ lineWidth: 0 });
}
