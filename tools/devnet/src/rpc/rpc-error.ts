/** A JSON-RPC error with Solana's codes. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_REQUEST = -32600;
export const PARSE_ERROR = -32700;
/** What providers answer a request over its method's budget. */
export const TOO_MANY_REQUESTS = -32029;
/** A request's `minContextSlot` is ahead of the node. */
export const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;
/** Solana's "Transaction simulation failed" preflight error. */
export const PREFLIGHT_FAILURE = -32002;

export function invalidParams(message: string): RpcError {
  return new RpcError(INVALID_PARAMS, `Invalid params: ${message}`);
}
