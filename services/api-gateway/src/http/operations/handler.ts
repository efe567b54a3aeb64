import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Api, OperationId, ParamValues } from '@gridlab/contracts';
import type { Request, Response } from 'express';
import type { Caller } from '../../app/access';
import type { AppDeps } from '../app';

/**
 * The operations the raw server answers before Express (server.ts): GET /live, polled
 * every second or two by every client, and the SSE streams.
 */
export const RAW_OPERATIONS = ['getLive', 'streamLive', 'streamEvents', 'streamMiner', 'streamAlerts'] as const;
export type RawOperationId = (typeof RAW_OPERATIONS)[number];
export type RoutedOperationId = Exclude<OperationId, RawOperationId>;

/** What a handler is given: the request, its checked parameters and, unless the operation is public, its caller. */
interface Ctx<Id extends OperationId> {
  readonly req: Request;
  readonly res: Response;
  readonly params: ParamValues<Api[Id]>;
  readonly caller: Api[Id]['access'] extends 'public' ? undefined : Caller;
  readonly deps: AppDeps;
  readonly requestId: string;
}

/** One operation's handler, bound to it by its operationId. */
type Handler<Id extends OperationId> = (ctx: Ctx<Id>) => void | Promise<void>;

/** The handlers of a group of operations. */
export type Handlers<Ids extends RoutedOperationId> = { readonly [K in Ids]: Handler<K> };

/** A raw operation's handler: the node request and response, the request id and the path's `{name}` segments (decoded, unchecked). */
type RawHandler = (req: IncomingMessage, res: ServerResponse, requestId: string, path: Readonly<Record<string, string>>) => void;
export type RawHandlers = { readonly [K in RawOperationId]: RawHandler };
