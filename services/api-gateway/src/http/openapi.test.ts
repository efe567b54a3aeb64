import * as contracts from '@gridlab/contracts';
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

  it('marks as planned only what is not served yet', () => {
    const paths = (loadOpenApi().document as { paths: Record<string, Record<string, { 'x-gridlab-status'?: string }>> }).paths;
    for (const path of ['/api/v1/pricing', '/api/v1/subscribe', '/api/v1/reissue', '/api/v1/live', '/api/v1/dump', '/api/v1/events', '/api/v1/events/stream']) {
      for (const op of Object.values(paths[path]!)) expect(op['x-gridlab-status']).toBeUndefined();
    }
  });
});
