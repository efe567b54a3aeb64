import { ChainError } from '@gridlab/errors';

/** A raw account as JSON-RPC returns it, data decoded. */
export interface RawAccount {
  readonly pubkey: string;
  readonly data: Buffer;
  readonly owner: string;
}

interface RpcResponse<T> {
  result?: T;
  error?: { code: number; message: string };
}

type AccountJson = { data: [string, string]; owner: string } | null;

/**
 * The few Solana JSON-RPC calls the indexer makes, over HTTP with a deadline. Any
 * transport failure, timeout or RPC error becomes a retryable ChainError.
 */
export class SolanaRpc {
  private nextId = 1;

  constructor(
    private readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(method: string, params: unknown[], timeoutMs = this.timeoutMs): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ChainError(`${method}: RPC unreachable`, { cause: error });
    }
    if (!response.ok) throw new ChainError(`${method}: HTTP ${response.status}`);
    let body: RpcResponse<T>;
    try {
      body = (await response.json()) as RpcResponse<T>;
    } catch (error) {
      throw new ChainError(`${method}: malformed RPC response`, { cause: error });
    }
    if (body.error !== undefined) throw new ChainError(`${method}: RPC error ${body.error.code} ${body.error.message}`);
    return body.result as T;
  }

  /** The chain's identity: the base58 hash of its genesis block. */
  async getGenesisHash(): Promise<string> {
    return this.call<string>('getGenesisHash', []);
  }

  async getSlot(): Promise<number> {
    return this.call<number>('getSlot', [{ commitment: 'confirmed' }]);
  }

  /** Accounts in order (null where missing), with the slot they were read at. */
  async getMultipleAccounts(pubkeys: readonly string[]): Promise<{ slot: number; accounts: (RawAccount | null)[] }> {
    const result = await this.call<{ context: { slot: number }; value: AccountJson[] }>('getMultipleAccounts', [
      pubkeys,
      { encoding: 'base64', commitment: 'confirmed' },
    ]);
    return {
      slot: result.context.slot,
      accounts: result.value.map((a, i) => (a === null ? null : { pubkey: pubkeys[i]!, data: Buffer.from(a.data[0], 'base64'), owner: a.owner })),
    };
  }

  async getAccount(pubkey: string): Promise<RawAccount | null> {
    return (await this.getMultipleAccounts([pubkey])).accounts[0] ?? null;
  }

  /** Program accounts of one data size whose first byte is `discriminator`. */
  async getProgramAccounts(programId: string, dataSize: number, discriminatorBase58: string): Promise<RawAccount[]> {
    const result = await this.call<{ pubkey: string; account: { data: [string, string]; owner: string } }[]>(
      'getProgramAccounts',
      [
        programId,
        {
          encoding: 'base64',
          commitment: 'confirmed',
          filters: [{ dataSize }, { memcmp: { offset: 0, bytes: discriminatorBase58 } }],
        },
      ],
      60_000,
    );
    return result.map((r) => ({ pubkey: r.pubkey, data: Buffer.from(r.account.data[0], 'base64'), owner: r.account.owner }));
  }
}
