/**
 * Generated from the operation table in libs/contracts/src/api by `pnpm -s generate`
 * (tools/api-docs): do not edit. Declare operations there.
 */
import type { components } from './openapi.ts';

type Schemas = components['schemas'];

export type AlertCreateRequest = Schemas['AlertCreateRequest'];
export type AlertCreated = Schemas['AlertCreated'];
export type AlertDeleted = Schemas['AlertDeleted'];
export type AlertDeliveries = Schemas['AlertDeliveries'];
export type AlertList = Schemas['AlertList'];
export type AlertRedelivery = Schemas['AlertRedelivery'];
export type AlertResponse = Schemas['AlertResponse'];
export type AlertSecret = Schemas['AlertSecret'];
export type AlertTest = Schemas['AlertTest'];
export type AlertUpdateRequest = Schemas['AlertUpdateRequest'];
export type Analytics = Schemas['Analytics'];
export type AnalyticsRequest = Schemas['AnalyticsRequest'];
export type AnalyticsResponse = Schemas['AnalyticsResponse'];
export type BacktestRequest = Schemas['BacktestRequest'];
export type BacktestResponse = Schemas['BacktestResponse'];
export type BacktestResult = Schemas['BacktestResult'];
export type DashboardConfig = Schemas['DashboardConfig'];
export type DumpPage = Schemas['DumpPage'];
export type EventPage = Schemas['EventPage'];
export type ForwardStats = Schemas['ForwardStats'];
export type Grid = Schemas['Grid'];
export type IssuedKey = Schemas['IssuedKey'];
export type Leaderboard = Schemas['Leaderboard'];
export type LeaderboardDetail = Schemas['LeaderboardDetail'];
export type LiveEv = Schemas['LiveEv'];
export type LiveGame = Schemas['LiveGame'];
export type LiveSnapshot = Schemas['LiveSnapshot'];
export type LiveView = Schemas['LiveView'];
export type LogEvent = Schemas['LogEvent'];
export type MinerPerformance = Schemas['MinerPerformance'];
export type MinerRound = Schemas['MinerRound'];
export type MinerRoundList = Schemas['MinerRoundList'];
export type MinerSummary = Schemas['MinerSummary'];
export type MinerWindow = Schemas['MinerWindow'];
export type Pricing = Schemas['Pricing'];
export type Problem = Schemas['Problem'];
export type ReissueCompleteRequest = Schemas['ReissueCompleteRequest'];
export type ReissueStart = Schemas['ReissueStart'];
export type ReissueStartRequest = Schemas['ReissueStartRequest'];
export type Round = Schemas['Round'];
export type RoundList = Schemas['RoundList'];
export type RoundMiners = Schemas['RoundMiners'];
export type RoundWithNeighbours = Schemas['RoundWithNeighbours'];
export type RuleStats = Schemas['RuleStats'];
export type SessionChallenge = Schemas['SessionChallenge'];
export type SessionChallengeRequest = Schemas['SessionChallengeRequest'];
export type SessionInfo = Schemas['SessionInfo'];
export type SessionStartRequest = Schemas['SessionStartRequest'];
export type Stats = Schemas['Stats'];
export type StrategyCreateRequest = Schemas['StrategyCreateRequest'];
export type StrategyDeleted = Schemas['StrategyDeleted'];
export type StrategyDetail = Schemas['StrategyDetail'];
export type StrategyDsl = Schemas['StrategyDsl'];
export type StrategyList = Schemas['StrategyList'];
export type StrategyResponse = Schemas['StrategyResponse'];
export type StrategyUpdateRequest = Schemas['StrategyUpdateRequest'];
export type SubscribeCompleteRequest = Schemas['SubscribeCompleteRequest'];
export type SubscribeStartRequest = Schemas['SubscribeStartRequest'];
export type SubscriptionStart = Schemas['SubscriptionStart'];
export type TopMiners = Schemas['TopMiners'];
