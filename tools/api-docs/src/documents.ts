/**
 * The schemas of the OpenAPI and AsyncAPI documents, written from @gridlab/contracts: each
 * wire shape is defined once there (a TypeBox schema: the JSON Schema ajv checks and the
 * TypeScript type), and the documents' `components.schemas` are generated from it. The
 * rest of each document (paths, operations, channels, messages, prose and examples) is
 * written by hand; `$ref`s between schemas become `#/components/schemas/<name>`.
 */
import * as contracts from '@gridlab/contracts';
import { dslSchema } from '@gridlab/strategy';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scalar, isMap, isScalar, parseDocument, visit, type Document } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');
export const OPENAPI_PATH = join(ROOT, 'services/api-gateway/openapi/openapi.yaml');
export const ASYNCAPI_PATH = join(ROOT, 'docs/asyncapi.yaml');

type Schema = Record<string, unknown>;

/**
 * The OpenAPI components, by their public names (the client's types carry these names,
 * so a rename here is a breaking change for its users). The HTTP API names some bodies
 * after the route rather than the NATS command they become.
 */
const OPENAPI_SCHEMAS: Record<string, contracts.TSchema | Schema> = {
  Problem: contracts.problemSchema,
  Round: contracts.roundSchema,
  RoundWithNeighbours: contracts.roundWithNeighboursSchema,
  RoundList: contracts.roundListSchema,
  DumpPage: contracts.dumpPageSchema,
  LiveSnapshot: contracts.liveSnapshotSchema,
  LiveGame: contracts.liveGameSchema,
  LiveEv: contracts.liveEvSchema,
  LiveView: contracts.liveViewSchema,
  RuleStats: contracts.ruleStatsSchema,
  Stats: contracts.statsSchema,
  Grid: contracts.gridSchema,
  Pricing: contracts.pricingSchema,
  SubscribeStartRequest: contracts.subscribeStartRequestSchema,
  SubscriptionStart: contracts.subscriptionStartSchema,
  SubscribeCompleteRequest: contracts.subscribeCompleteRequestSchema,
  IssuedKey: contracts.issuedKeySchema,
  ReissueStartRequest: contracts.reissueStartRequestSchema,
  ReissueStart: contracts.reissueStartSchema,
  ReissueCompleteRequest: contracts.reissueCompleteRequestSchema,
  LogEvent: contracts.logEventSchema,
  EventPage: contracts.eventPageSchema,
  StrategyDsl: dslSchema,
  BacktestRequest: contracts.backtestRequestSchema,
  AnalyticsRequest: contracts.analyticsRequestSchema,
  BacktestResult: contracts.backtestResultSchema,
  Analytics: contracts.analyticsSchema,
  BacktestResponse: contracts.backtestResponseSchema,
  AnalyticsResponse: contracts.analyticsResponseSchema,
  StrategyCreateRequest: contracts.strategyCreateBodySchema,
  StrategyUpdateRequest: contracts.strategyUpdateBodySchema,
  StrategyResponse: contracts.strategyReplySchema,
  StrategyDetail: contracts.strategyDetailReplySchema,
  StrategyList: contracts.strategyListReplySchema,
  StrategyDeleted: contracts.strategyDeleteReplySchema,
  ForwardStats: contracts.forwardStatsSchema,
  Leaderboard: contracts.leaderboardSchema,
  LeaderboardDetail: contracts.leaderboardDetailSchema,
};

/** The AsyncAPI message payloads, by message name: every schema a service validates on NATS. */
const ASYNCAPI_PAYLOADS: Record<string, contracts.TSchema | Schema> = {
  Round: contracts.roundSchema,
  RoundOpened: contracts.roundOpenedSchema,
  LiveSnapshot: contracts.liveSnapshotSchema,
  KeyShared: contracts.keySharedSchema,
  KeyRevoked: contracts.keyRevokedSchema,
  SessionEnded: contracts.sessionEndedSchema,
  SessionEndRequest: contracts.sessionEndRequestSchema,
  SessionEndReply: contracts.sessionEndReplySchema,
  LogEvent: contracts.logEventSchema,
  SubscriptionFact: contracts.subscriptionFactSchema,
  TierFact: contracts.tierFactSchema,
  SubscribeStartRequest: contracts.subscribeStartRequestSchema,
  SubscribeCompleteRequest: contracts.subscribeCompleteRequestSchema,
  ReissueStartRequest: contracts.reissueStartRequestSchema,
  ReissueCompleteRequest: contracts.reissueCompleteRequestSchema,
  KeyRevokeRequest: contracts.keyRevokeRequestSchema,
  CommandReply: contracts.commandReplySchema,
  PricingRequest: contracts.pricingRequestSchema,
  Pricing: contracts.pricingSchema,
  SubscriptionStart: contracts.subscriptionStartSchema,
  IssuedKey: contracts.issuedKeySchema,
  ReissueStart: contracts.reissueStartSchema,
  KeyRevokeReply: contracts.keyRevokeReplySchema,
  BacktestRequest: contracts.backtestRequestSchema,
  AnalyticsRequest: contracts.analyticsRequestSchema,
  BacktestResult: contracts.backtestResultSchema,
  Analytics: contracts.analyticsSchema,
  StrategyCreateRequest: contracts.strategyCreateRequestSchema,
  StrategyOwnerRequest: contracts.strategyOwnerRequestSchema,
  StrategyIdRequest: contracts.strategyIdRequestSchema,
  StrategyUpdateRequest: contracts.strategyUpdateRequestSchema,
  LeaderboardRequest: contracts.leaderboardRequestSchema,
  LeaderboardEntryRequest: contracts.leaderboardEntryRequestSchema,
  StrategyReply: contracts.strategyReplySchema,
  StrategyDetailReply: contracts.strategyDetailReplySchema,
  StrategyListReply: contracts.strategyListReplySchema,
  StrategyDeleteReply: contracts.strategyDeleteReplySchema,
  ForwardStats: contracts.forwardStatsSchema,
  Leaderboard: contracts.leaderboardSchema,
  LeaderboardDetail: contracts.leaderboardDetailSchema,
};

/** Keys first in this order (what a reader looks for first), the rest as the schema has them. */
const KEY_ORDER = [
  '$ref',
  'type',
  'const',
  'enum',
  'format',
  'pattern',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'description',
];

/**
 * The components of a document: each named schema as plain JSON Schema (no `$id`), its
 * `$ref`s pointing into the document. A schema referenced but not named is added under
 * its `$id`, so every reference resolves.
 */
export function components(named: Record<string, contracts.TSchema | Schema>): Record<string, Schema> {
  const nameOf = new Map<string, string>();
  for (const [name, schema] of Object.entries(named)) {
    const id = schema['$id'];
    if (typeof id === 'string' && !nameOf.has(id)) nameOf.set(id, name);
  }
  const byId = new Map(contracts.NAMED_SCHEMAS.map((s) => [s.$id!, s as Schema]));
  const out: Record<string, Schema> = {};
  const pending = Object.entries(named);
  const refer = (id: string): string => {
    let name = nameOf.get(id) ?? (id in named ? id : undefined);
    if (name === undefined) {
      const schema = byId.get(id);
      if (schema === undefined) throw new Error(`a schema refers to ${id}, which no contract defines`);
      name = id;
      nameOf.set(id, name);
      pending.push([name, schema]);
    }
    return `#/components/schemas/${name}`;
  };
  const plain = (value: unknown, top: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => plain(v, false));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Schema).filter(([k]) => !(top && k === '$id'));
    entries.sort(([a], [b]) => rank(a) - rank(b));
    return Object.fromEntries(entries.map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? refer(v) : plain(v, false)]));
  };
  for (let i = 0; i < pending.length; i++) {
    const [name, schema] = pending[i]!;
    out[name] = plain(schema, true) as Schema;
  }
  return out;
}

function rank(key: string): number {
  const i = KEY_ORDER.indexOf(key);
  return i === -1 ? KEY_ORDER.length : i;
}

const GENERATED_NOTE = ' Generated from libs/contracts by `pnpm -s generate` (tools/api-docs): edit the contracts, not these.';

/** The text without the note (where the parser attaches a comment depends on what surrounds it). */
function parseWithoutNote(text: string): Document {
  return parseDocument(text.split('\n').filter((line) => line.trim() !== `#${GENERATED_NOTE}`).join('\n'));
}

/** `document` with its `components.schemas` replaced; short maps and lists on one line, as the hand-written parts are. */
function withSchemas(document: Document, schemas: Record<string, Schema>): string {
  const node = document.createNode(schemas);
  visit(node, {
    Map(_, map) {
      if (JSON.stringify(map.toJSON()).length <= 90) map.flow = true;
    },
    Seq(_, seq) {
      if (JSON.stringify(seq.toJSON()).length <= 90) seq.flow = true;
    },
  });
  document.setIn(['components', 'schemas'], node);
  const components = document.get('components', true);
  const pair = isMap(components) ? components.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === 'schemas') : undefined;
  if (pair !== undefined) {
    const key = isScalar(pair.key) ? pair.key : new Scalar(pair.key);
    key.commentBefore = GENERATED_NOTE;
    pair.key = key;
  }
  // No folding: the hand-written parts keep their lines as written.
  return document.toString({ lineWidth: 0 });
}

/** The OpenAPI document as it should be: the hand-written text with the contracts' schemas. */
export function openApiText(current = readFileSync(OPENAPI_PATH, 'utf8')): string {
  return withSchemas(parseWithoutNote(current), components(OPENAPI_SCHEMAS));
}

/** The AsyncAPI document as it should be: every message's payload a reference to its contract's schema. */
export function asyncApiText(current = readFileSync(ASYNCAPI_PATH, 'utf8')): string {
  const document = parseWithoutNote(current);
  const messages = document.getIn(['components', 'messages'], true);
  if (!isMap(messages)) throw new Error('docs/asyncapi.yaml has no components.messages');
  for (const name of Object.keys(ASYNCAPI_PAYLOADS)) {
    if (!messages.has(name)) throw new Error(`docs/asyncapi.yaml has no message ${name}`);
    document.setIn(['components', 'messages', name, 'payload'], document.createNode({ $ref: `#/components/schemas/${name}` }, { flow: true }));
  }
  for (const pair of messages.items) {
    const name = String((pair.key as { value?: unknown }).value);
    // A message of raw bytes (a slice of a chunked reply) has no JSON schema of its own.
    if (document.hasIn(['components', 'messages', name, 'payload', 'contentMediaType'])) continue;
    if (!(name in ASYNCAPI_PAYLOADS)) throw new Error(`docs/asyncapi.yaml's message ${name} has no contract in tools/api-docs`);
  }
  // The bus carries a DSL as any object (lab-backtest and lab-forward check it); the document details it.
  return withSchemas(document, components({ ...ASYNCAPI_PAYLOADS, StrategyDsl: dslSchema }));
}
