/**
 * Names for the API's request and response bodies, taken from the types generated from
 * the OpenAPI document (src/generated/openapi.ts, `pnpm --filter @gridlab/client generate`).
 */
import type { components, paths } from './generated/openapi.ts';

export type { components, paths };
type Schemas = components['schemas'];

export type Problem = Schemas['Problem'];
export type Round = Schemas['Round'];
export type RoundWithNeighbours = Schemas['RoundWithNeighbours'];
export type RoundList = Schemas['RoundList'];
export type DumpPage = Schemas['DumpPage'];
export type LiveSnapshot = Schemas['LiveSnapshot'];
export type LiveView = Schemas['LiveView'];
export type LiveGame = Schemas['LiveGame'];
export type LiveEv = Schemas['LiveEv'];
export type Stats = Schemas['Stats'];
export type Grid = Schemas['Grid'];
export type Pricing = Schemas['Pricing'];
export type SubscribeStartRequest = Schemas['SubscribeStartRequest'];
export type SubscriptionStart = Schemas['SubscriptionStart'];
export type SubscribeCompleteRequest = Schemas['SubscribeCompleteRequest'];
export type IssuedKey = Schemas['IssuedKey'];
export type ReissueStartRequest = Schemas['ReissueStartRequest'];
export type ReissueStart = Schemas['ReissueStart'];
export type ReissueCompleteRequest = Schemas['ReissueCompleteRequest'];
export type LogEvent = Schemas['LogEvent'];
export type EventKind = LogEvent['kind'];
export type EventPage = Schemas['EventPage'];
export type StrategyDsl = Schemas['StrategyDsl'];
export type BacktestRequest = Schemas['BacktestRequest'];
export type BacktestResponse = Schemas['BacktestResponse'];
export type AnalyticsRequest = Schemas['AnalyticsRequest'];
export type AnalyticsResponse = Schemas['AnalyticsResponse'];
export type StrategyCreateRequest = Schemas['StrategyCreateRequest'];
export type StrategyUpdateRequest = Schemas['StrategyUpdateRequest'];
export type StrategyResponse = Schemas['StrategyResponse'];
export type StrategyDetail = Schemas['StrategyDetail'];
export type StrategyList = Schemas['StrategyList'];
export type StrategyDeleted = Schemas['StrategyDeleted'];
export type ForwardStats = Schemas['ForwardStats'];
export type Leaderboard = Schemas['Leaderboard'];
export type LeaderboardDetail = Schemas['LeaderboardDetail'];
/** The dashboard's session endpoints (`/api/live/session`, `/api/live/config`): for its page only. */
export type SessionStartRequest = Schemas['SessionStartRequest'];
export type SessionChallengeRequest = Schemas['SessionChallengeRequest'];
export type SessionChallenge = Schemas['SessionChallenge'];
export type SessionInfo = Schemas['SessionInfo'];
export type DashboardConfig = Schemas['DashboardConfig'];

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The methods the document defines for a path. */
export type MethodOf<P extends keyof paths> = { [M in Method]: [Operation<P, M>] extends [never] ? never : M }[Method];

/** The path parameters of an operation (`{ id }` for `/lab/strategies/{id}`). */
export type PathParams<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { path: infer X } } ? NonNullable<X> : never;

/** The JSON body of an operation's success answer (200 or 201). */
export type OkBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? R extends { 200: { content: { 'application/json': infer B } } }
      ? B
      : R extends { 201: { content: { 'application/json': infer B } } }
        ? B
        : never
    : never;

/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** The query parameters of an operation. */
export type Query<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
