/**
 * @gridlab/client: the Gridlab API for TypeScript, in Node ≥ 20 and browsers (fetch-based,
 * no dependencies). Wallet flows live in `@gridlab/client/wallet`.
 */
export { GridlabClient, type GridlabClientOptions, type StreamOptions, type EventStreamOptions, type DumpOptions, type MinerExportOptions, type MinerStreamOptions, type AlertStreamOptions } from './client.ts';
export type { AlertPayload, AlertStreamFiring } from './alerts.ts';
export type { MinerDeployed, MinerExportFormat, MinerStreamEvent } from './miners.ts';
export { GridlabApiError, GridlabTimeoutError, GridlabNetworkError, isGridlabApiError, type RateLimit, type FieldError } from './errors.ts';
export type { CallOptions, RetryOptions } from './transport.ts';
export { OPERATIONS, type OperationRoute } from './generated/operations.ts';
export { roundEvents, INITIAL_WATCH_STATE, type RoundRange, type RoundWatchEvent, type RoundWatchState } from './rounds.ts';
export { SseParser, type SseMessage } from './sse.ts';
export { subscribeMessage, type SubscribeMessageFields } from './subscribe-message.ts';
export { reissueMessage, type ReissueMessageFields } from './reissue-message.ts';
export type * from './types.ts';
