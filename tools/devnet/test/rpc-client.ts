/** Plain JSON-RPC calls against a devnet (no client library in between), for the tests. */

export interface RpcReply<T> {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: { result?: T; error?: { code: number; message: string; data?: unknown } };
}

export async function call<T>(url: string, method: string, params: unknown[] = []): Promise<RpcReply<T>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as RpcReply<T>['body'] };
}

/** The result, or a thrown Error with the JSON-RPC error. */
export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const { body } = await call<T>(url, method, params);
  if (body.error !== undefined) throw new Error(JSON.stringify(body.error));
  return body.result as T;
}

export async function batch(url: string, requests: readonly { method: string; params: unknown[] }[]): Promise<{ status: number; retryAfter: string | null; items: RpcReply<unknown>['body'][] }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(requests.map((r, id) => ({ jsonrpc: '2.0', id, ...r }))),
  });
  const items = (await res.json()) as (RpcReply<unknown>['body'] & { id: number })[];
  return { status: res.status, retryAfter: res.headers.get('retry-after'), items: [...items].sort((a, b) => a.id - b.id) };
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  memo: string | null;
  blockTime: number;
  confirmationStatus: string;
}

/** Every signature of an address, newest first, paged with `before`. */
export async function allSignatures(url: string, address: string, limit = 1000): Promise<SignatureInfo[]> {
  const out: SignatureInfo[] = [];
  for (;;) {
    const before = out.at(-1)?.signature;
    const page = await rpc<SignatureInfo[]>(url, 'getSignaturesForAddress', [address, { limit, ...(before === undefined ? {} : { before }) }]);
    out.push(...page);
    if (page.length < limit) return out;
  }
}

/** getTransaction (json, version 0 accepted) for many signatures, 100 a batch, in the order given. */
export async function transactions<T>(url: string, signatures: readonly string[]): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < signatures.length; i += 100) {
    const { items } = await batch(
      url,
      signatures.slice(i, i + 100).map((s) => ({ method: 'getTransaction', params: [s, { encoding: 'json', maxSupportedTransactionVersion: 0 }] })),
    );
    for (const item of items) {
      if (item.error !== undefined) throw new Error(JSON.stringify(item.error));
      out.push(item.result as T);
    }
  }
  return out;
}
