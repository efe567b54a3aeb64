import * as contracts from '@gridlab/contracts';
import { dslSchema } from '@gridlab/strategy';
import { loadOpenApi } from './openapi';

const schemas = (loadOpenApi().document as { components: { schemas: Record<string, unknown> } }).components.schemas;
const withoutId = ({ $id: _id, ...rest }: Record<string, unknown>) => rest;

describe('the OpenAPI document', () => {
  it("states billing's bodies and the log event exactly as the contracts both sides validate", () => {
    const expected: Record<string, Record<string, unknown>> = {
      Pricing: contracts.pricingSchema,
      SubscribeStartRequest: contracts.subscribeStartRequestSchema,
      SubscriptionStart: contracts.subscriptionStartSchema,
      SubscribeCompleteRequest: contracts.subscribeCompleteRequestSchema,
      IssuedKey: contracts.issuedKeySchema,
      ReissueStartRequest: contracts.reissueStartRequestSchema,
      ReissueStart: contracts.reissueStartSchema,
      ReissueCompleteRequest: contracts.reissueCompleteRequestSchema,
      LogEvent: contracts.logEventSchema,
    };
    for (const [name, schema] of Object.entries(expected)) expect([name, schemas[name]]).toEqual([name, withoutId(schema)]);
  });

  it('marks no operation as planned: every endpoint of the contract is served', () => {
    const paths = (loadOpenApi().document as { paths: Record<string, Record<string, { 'x-gridlab-status'?: string }>> }).paths;
    const planned = Object.entries(paths).flatMap(([path, ops]) => Object.values(ops).filter((op) => op['x-gridlab-status'] !== undefined).map(() => path));
    expect(planned).toEqual([]);
  });

  it('states the Strategy Lab bodies exactly as lab-backtest and the gateway validate them (field descriptions aside)', () => {
    const withoutDocs = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(withoutDocs);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'description' && k !== '$id').map(([k, v]) => [k, withoutDocs(v)]));
    };
    expect(withoutDocs(schemas['BacktestResult'])).toEqual(withoutDocs(contracts.backtestResultSchema));
    expect(withoutDocs(schemas['Analytics'])).toEqual(withoutDocs(contracts.analyticsSchema));
    expect(withoutDocs(schemas['StrategyDsl'])).toEqual(withoutDocs(dslSchema));
    // The contracts accept any object as the DSL (lab-backtest checks it and names each path); the document details it.
    const dslRef = { $ref: '#/components/schemas/StrategyDsl' };
    const asContract = (name: string) => withoutDocs({ ...(schemas[name] as object), properties: { ...(schemas[name] as { properties: object }).properties, dsl: { type: 'object' } } });
    expect((schemas['BacktestRequest'] as { properties: { dsl: unknown } }).properties.dsl).toEqual(dslRef);
    expect(asContract('BacktestRequest')).toEqual(withoutDocs(contracts.backtestRequestSchema));
    expect(asContract('AnalyticsRequest')).toEqual(withoutDocs(contracts.analyticsRequestSchema));
  });
  it('states the strategy records, forward stats and leaderboard exactly as lab-forward and the gateway validate them', () => {
    const withoutDocs = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(withoutDocs);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'description' && k !== '$id').map(([k, v]) => [k, withoutDocs(v)]));
    };
    const expected: Record<string, Record<string, unknown>> = {
      StrategyUpdateRequest: contracts.strategyUpdateBodySchema,
      StrategyResponse: contracts.strategyReplySchema,
      StrategyDetail: contracts.strategyDetailReplySchema,
      StrategyList: contracts.strategyListReplySchema,
      StrategyDeleted: contracts.strategyDeleteReplySchema,
      ForwardStats: contracts.forwardStatsSchema,
      Leaderboard: contracts.leaderboardSchema,
      LeaderboardDetail: contracts.leaderboardDetailSchema,
    };
    for (const [name, schema] of Object.entries(expected)) expect([name, withoutDocs(schemas[name])]).toEqual([name, withoutDocs(schema)]);
    // The contract accepts any object as the DSL (lab-forward normalizes it and names each path); the document details it.
    const create = schemas['StrategyCreateRequest'] as { properties: Record<string, unknown> };
    expect(create.properties['dsl']).toEqual({ $ref: '#/components/schemas/StrategyDsl' });
    expect(withoutDocs({ ...create, properties: { ...create.properties, dsl: { type: 'object' } } })).toEqual(withoutDocs(contracts.strategyCreateBodySchema));
  });
});
