import { alertsOperations } from './alerts';
import { billingOperations } from './billing';
import { eventsOperations } from './events';
import { labOperations } from './lab';
import { minersOperations } from './miners';
import type { Access, OperationSpec } from './operation';
import { roundsOperations } from './rounds';
import { sessionOperations } from './session';

/**
 * Every HTTP operation the gateway serves, by operationId: the one place an endpoint is
 * declared. tools/api-docs writes the OpenAPI document's paths from it; the gateway binds
 * each operation's handler, parameter checks, access and rate-limit cost to it.
 */
export const API = { ...roundsOperations, ...billingOperations, ...eventsOperations, ...labOperations, ...minersOperations, ...alertsOperations, ...sessionOperations } as const;

export type Api = typeof API;
export type OperationId = keyof Api;

/** The operations as a list, each with its id. */
export const API_OPERATIONS: readonly (OperationSpec & { readonly operationId: OperationId })[] = Object.entries(API).map(([operationId, op]) => ({
  ...op,
  operationId: operationId as OperationId,
}));

/** The document's tags (an operation's first tag names its group), in the order a reader meets them. */
export const API_TAGS: readonly { readonly name: string; readonly description: string }[] = [
  { name: 'live', description: 'The live round, from the gateway\'s memory: its snapshot, expected values and stream.' },
  { name: 'rounds', description: 'Stored rounds, whole-history statistics, per-square figures and the bulk export.' },
  { name: 'miners', description: "Every wallet's side of every round: its ledger, summary, performance, the top miners, and who played a round." },
  { name: 'events', description: 'The event log (SPEC 6), polled or streamed.' },
  { name: 'billing', description: 'Pricing, subscriptions and key rotation: public, answered by billing.' },
  { name: 'lab', description: 'The Strategy Lab: backtests, analytics, strategies, forward tests and the leaderboard.' },
  { name: 'alerts', description: 'Alert rules: what the game does pushed to your endpoint as signed webhooks (Standard Webhooks 1.0), with their delivery log.' },
  { name: 'session', description: "The dashboard's browser sessions (`/api/live*`): for the dashboard's page only, not for API clients." },
  { name: 'document', description: 'This document.' },
];

/**
 * The security scheme each kind of access names (`public`: none). A paid operation is
 * also served on the dashboard's `/api/live/<path>` mirror for a session cookie (the
 * document's description says so), but its scheme is the Bearer key.
 */
export const ACCESS_SCHEMES: Readonly<Record<Exclude<Access, 'public'>, { readonly name: string; readonly scheme: Record<string, string> }>> = {
  paid: { name: 'bearer', scheme: { type: 'http', scheme: 'bearer', description: 'API key: grid_ followed by 43 base58 characters' } },
  session: {
    name: 'session',
    scheme: {
      type: 'apiKey',
      in: 'cookie',
      name: 'gridlab_session',
      description:
        'The dashboard\'s HttpOnly session cookie, set by POST /api/live/session: `gridlab_session` for a plain-http PUBLIC_ORIGIN, `__Host-gridlab_session` for https. Sent only with the dashboard page\'s Origin.',
    },
  },
};

export {
  RATE_LIMIT_HEADERS,
  SHARED_RESPONSES,
  impliedResponses,
  isPublished,
  type Access,
  type ApiResponse,
  type Content,
  type Method,
  type OperationSpec,
  type ParamValues,
  type Parameters,
  type Published,
  type ResponseHeader,
} from './operation';
