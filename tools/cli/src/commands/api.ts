import { OPERATIONS, type OperationRoute, type RequestOperationId } from '@gridlab/client';
import { InputError } from '@gridlab/errors';
import type { Command } from 'commander';
import { apiOptions, clientFor, printTable, readJsonFile, type ApiOptions } from '../api';

interface ApiCommandOptions extends ApiOptions {
  readonly list: boolean;
  readonly path?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** A repeated `name=value` option: each adds its pair (the last value of a name wins). */
function pair(value: string, previous: Readonly<Record<string, string>> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InputError(`expected name=value, got ${value}`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** The operation named on the command line, as request() calls it. */
function operationOf(operationId: string): { readonly id: RequestOperationId; readonly route: OperationRoute } {
  if (!Object.hasOwn(OPERATIONS, operationId)) throw new InputError(`${operationId} is not an operation of the API (gridlab api --list lists them)`);
  const route: OperationRoute = OPERATIONS[operationId as keyof typeof OPERATIONS];
  if (route.answers === 'text/event-stream') throw new InputError(`${operationId} answers an event stream, which gridlab api does not read (gridlab live follows the live one)`);
  return { id: operationId as RequestOperationId, route };
}

/** The path parameters for `path`'s template: each named once, none left out. */
function pathParameters(operationId: string, template: string, given: Readonly<Record<string, string>>): Record<string, string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const unknown = Object.keys(given).filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new InputError(`${operationId} (${template}) has no path parameter ${unknown.join(', ')}`);
  const missing = names.filter((name) => given[name] === undefined);
  if (missing.length > 0) throw new InputError(`${operationId} (${template}) needs --path ${missing.map((name) => `${name}=...`).join(' --path ')}`);
  return { ...given };
}

/**
 * `gridlab api <operationId>`: any operation of the API through the client's request(),
 * its answer printed as JSON; `gridlab api --list`: the operations.
 */
export function registerApi(program: Command): void {
  apiOptions(
    program
      .command('api')
      .description('call any operation of the API by its operationId and print the answer as JSON (one line with --json); --list lists the operations')
      .argument('[operationId]', 'the operation (gridlab api --list)')
      .option('--list', 'list the operations: operationId, method, path, access, what a success answers with', false)
      .option('--path <name=value>', 'a path parameter (repeatable)', pair)
      .option('--query <name=value>', 'a query parameter (repeatable)', pair)
      .option('--body <file>', 'the JSON request body'),
  ).action(async (operationId: string | undefined, opts: ApiCommandOptions) => {
    if (opts.list) {
      const list = Object.entries(OPERATIONS).map(([id, route]) => ({ operationId: id, ...route }));
      printTable(
        opts,
        list,
        ['operationId', 'method', 'path', 'access', 'answers'],
        list.map((op) => [op.operationId, op.method.toUpperCase(), op.path, op.access, op.answers ?? 'no content']),
      );
      return;
    }
    if (operationId === undefined) throw new InputError('name an operation (gridlab api --list lists them)');
    const { id, route } = operationOf(operationId);
    if (opts.body !== undefined && route.method === 'get') throw new InputError(`${operationId} is a GET: it takes no body`);
    const args = {
      path: pathParameters(operationId, route.path, opts.path ?? {}),
      ...(opts.query === undefined ? {} : { query: opts.query }),
      ...(opts.body === undefined ? {} : { body: readJsonFile(opts.body, 'body file') }),
    };
    const client = clientFor(opts, route.access === 'paid');
    // The operation is named at run time: the gateway checks its arguments (a 400 names what it refuses), not the compiler.
    const request = client.request.bind(client) as (id: RequestOperationId, args: unknown) => Promise<unknown>;
    const answer = await request(id, args);
    if (answer !== undefined) process.stdout.write(`${opts.json === true ? JSON.stringify(answer) : JSON.stringify(answer, null, 2)}\n`);
  });
}
