import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import * as contracts from './index';

const { natsNames } = contracts;

const DOC = parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'asyncapi.yaml'), 'utf8')) as {
  asyncapi: string;
  channels: Record<string, { address: string | null }>;
  components: { messages: Record<string, { payload: unknown }> };
};

describe('docs/asyncapi.yaml', () => {
  it('is an AsyncAPI 3 document with a channel for every subject the contracts define', () => {
    expect(DOC.asyncapi).toMatch(/^3\./);
    const addresses = Object.values(DOC.channels)
      .map((c) => c.address)
      .filter((a) => a !== null)
      .sort();
    const names = natsNames('');
    expect(addresses).toEqual([...Object.values(names.subjects), ...Object.values(names.commands)].sort());
  });

  it('documents exactly the payload schemas the services validate against', () => {
    const expected: Record<string, unknown> = {
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
    for (const [name, schema] of Object.entries(expected)) expect([name, DOC.components.messages[name]?.payload]).toEqual([name, schema]);
  });
});
