import bs58 from 'bs58';
import type { LiteSVM } from 'litesvm';
import { isBase58Pubkey, type AccountStore } from '../chain/account-store';
import { signaturesForAddress } from '../chain/address-signatures';
import type { GameHistory } from '../chain/game-history';
import { isSignature } from '../chain/game-signatures';
import type { Ledger } from '../chain/ledger';
import { accountJson, configOf, parseFilters } from './encoding';
import { toJsonParsed } from './parsed-transaction';
import type { MethodStats } from './rate-limits';
import { MIN_CONTEXT_SLOT_NOT_REACHED, PREFLIGHT_FAILURE, RpcError, invalidParams } from './rpc-error';

/** What the JSON-RPC methods read and call. */
export interface RpcContext {
  readonly store: AccountStore;
  readonly ledger: Ledger;
  readonly svm: LiteSVM;
  slot(): number;
  readonly genesisHash: string;
  /** The game's transactions, derived on demand. */
  readonly history: GameHistory;
  mintTokens(owner: string, amount: bigint): Promise<string>;
  rpcStats(): Record<string, MethodStats>;
}

export type RpcMethod = (params: unknown[]) => unknown;

const MAX_AIRDROP_LAMPORTS = 1_000_000_000_000_000n;
const MAX_SIGNATURES_LIMIT = 1000;

/** Methods that read confirmed history refuse `processed`, as nodes do. */
function checkHistoryCommitment(cfg: Record<string, unknown>): void {
  const commitment = cfg['commitment'];
  if (commitment === undefined || commitment === 'confirmed' || commitment === 'finalized') return;
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  throw invalidParams(`unknown commitment ${JSON.stringify(commitment)}`);
}

function checkMinContextSlot(ctx: RpcContext, cfg: Record<string, unknown>): void {
  const min = cfg['minContextSlot'];
  if (min === undefined) return;
  if (typeof min !== 'number' || !Number.isSafeInteger(min) || min < 0) throw invalidParams('minContextSlot must be a slot');
  if (min > ctx.slot()) throw new RpcError(MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: ctx.slot() });
}

function signatureOption(cfg: Record<string, unknown>, name: 'before' | 'until'): string | undefined {
  const value = cfg[name];
  if (value === undefined || value === null) return undefined;
  if (!isSignature(value)) throw invalidParams(`${name} is not a base58 signature`);
  return value;
}

function pubkeyParam(value: unknown, what = 'pubkey'): string {
  if (!isBase58Pubkey(value)) throw invalidParams(`${what} is not a base58 public key`);
  return value;
}

function withContext<T>(ctx: RpcContext, value: T): { context: { apiVersion: string; slot: number }; value: T } {
  return { context: { apiVersion: '2.2.0', slot: ctx.slot() }, value };
}

/** The Solana JSON-RPC methods the devnet serves, by name. */
export function rpcMethods(ctx: RpcContext): Record<string, RpcMethod> {
  const encodingOf = (cfg: unknown): string => {
    const enc = configOf(cfg)['encoding'];
    return typeof enc === 'string' ? enc : 'base64';
  };
  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 0 }),
    getGenesisHash: () => ctx.genesisHash,
    getSlot: () => ctx.slot(),
    getBlockHeight: () => ctx.slot(),
    getEpochInfo: () => {
      const slot = ctx.slot();
      return { absoluteSlot: slot, blockHeight: slot, epoch: Math.floor(slot / 432_000), slotIndex: slot % 432_000, slotsInEpoch: 432_000, transactionCount: null };
    },
    getLatestBlockhash: () =>
      withContext(ctx, { blockhash: ctx.svm.latestBlockhash(), lastValidBlockHeight: ctx.slot() + 150 }),
    isBlockhashValid: (params) => withContext(ctx, params[0] === ctx.svm.latestBlockhash()),
    getFeeForMessage: (params) => {
      if (typeof params[0] !== 'string') throw invalidParams('message must be a base64 string');
      const message = Buffer.from(params[0], 'base64');
      return withContext(ctx, 5000 * (message[0] !== undefined && message[0] & 0x80 ? message[1] ?? 1 : message[0] ?? 1));
    },
    getMinimumBalanceForRentExemption: (params) => {
      const size = params[0];
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidParams('data length must be a non-negative integer');
      return Number(ctx.svm.minimumBalanceForRentExemption(BigInt(size)));
    },
    getBalance: (params) => withContext(ctx, ctx.store.get(pubkeyParam(params[0]))?.lamports ?? 0),
    getTokenAccountBalance: (params) => {
      const balance = ctx.ledger.tokenBalance(pubkeyParam(params[0]));
      if (balance === null) throw invalidParams('not a token account');
      return withContext(ctx, balance.uiTokenAmount);
    },
    getAccountInfo: (params) => {
      const account = ctx.store.get(pubkeyParam(params[0]));
      return withContext(ctx, account === null ? null : accountJson(account, encodingOf(params[1])));
    },
    getMultipleAccounts: (params) => {
      const keys = params[0];
      if (!Array.isArray(keys) || keys.length > 100) throw invalidParams('expected an array of at most 100 pubkeys');
      const encoding = encodingOf(params[1]);
      return withContext(
        ctx,
        keys.map((k) => {
          const account = ctx.store.get(pubkeyParam(k));
          return account === null ? null : accountJson(account, encoding);
        }),
      );
    },
    getProgramAccounts: (params) => {
      const program = pubkeyParam(params[0], 'program id');
      const cfg = configOf(params[1]);
      const filters = parseFilters(cfg['filters']);
      const encoding = encodingOf(cfg);
      const matches = ctx.store
        .programAccounts(program)
        .filter(({ account }) => filters.every((f) => f(account.data)))
        .map(({ pubkey, account }) => ({ pubkey, account: accountJson(account, encoding) }));
      return cfg['withContext'] === true ? withContext(ctx, matches) : matches;
    },
    requestAirdrop: (params) => {
      const pubkey = pubkeyParam(params[0]);
      const amount = params[1];
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0 || BigInt(amount) > MAX_AIRDROP_LAMPORTS) {
        throw invalidParams('lamports must be a positive integer');
      }
      return ctx.ledger.airdrop(pubkey, BigInt(amount));
    },
    sendTransaction: (params) => {
      if (typeof params[0] !== 'string') throw invalidParams('transaction must be an encoded string');
      const cfg = configOf(params[1]);
      const wire = cfg['encoding'] === 'base64' ? Buffer.from(params[0], 'base64') : Buffer.from(bs58.decode(params[0]));
      let result;
      try {
        result = ctx.ledger.submit(wire, cfg['skipPreflight'] === true);
      } catch (error) {
        throw invalidParams(`failed to deserialize transaction: ${error instanceof Error ? error.message : 'invalid'}`);
      }
      if (result.ok) return result.signature;
      if (cfg['skipPreflight'] === true) return result.signature;
      throw new RpcError(PREFLIGHT_FAILURE, `Transaction simulation failed: ${JSON.stringify(result.err)}`, {
        accounts: null,
        err: result.err,
        logs: result.logs,
        unitsConsumed: 0,
        returnData: null,
      });
    },
    getSignatureStatuses: (params) => {
      const signatures = params[0];
      if (!Array.isArray(signatures) || signatures.length > 256) throw invalidParams('expected an array of at most 256 signatures');
      const status = (slot: number, err: unknown) => ({
        slot,
        confirmations: null,
        err,
        status: err === null ? { Ok: null } : { Err: err },
        confirmationStatus: 'finalized',
      });
      return withContext(
        ctx,
        signatures.map((sig) => {
          if (typeof sig !== 'string') return null;
          const game = ctx.history.positionOf(sig);
          if (game !== null) return status(game.slot, null);
          const record = ctx.ledger.get(sig);
          return record === undefined ? null : status(record.slot, record.err);
        }),
      );
    },
    getSignaturesForAddress: (params) => {
      const address = pubkeyParam(params[0], 'address');
      const cfg = configOf(params[1]);
      const limit = cfg['limit'] ?? MAX_SIGNATURES_LIMIT;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_LIMIT) throw invalidParams('Invalid limit');
      checkHistoryCommitment(cfg);
      checkMinContextSlot(ctx, cfg);
      const before = signatureOption(cfg, 'before');
      const until = signatureOption(cfg, 'until');
      return signaturesForAddress(ctx.history, ctx.ledger, address, { limit, ...(before === undefined ? {} : { before }), ...(until === undefined ? {} : { until }) });
    },
    getTransaction: (params) => {
      if (typeof params[0] !== 'string') throw invalidParams('signature must be a string');
      const cfg = configOf(params[1]);
      const encoding = typeof params[1] === 'string' ? params[1] : typeof cfg['encoding'] === 'string' ? cfg['encoding'] : 'json';
      if (encoding !== 'json' && encoding !== 'jsonParsed') throw invalidParams(`unsupported encoding ${encoding}`);
      checkHistoryCommitment(cfg);
      const versioned = cfg['maxSupportedTransactionVersion'] !== undefined;
      const encode = <T extends Parameters<typeof toJsonParsed>[0]>(tx: T) => (encoding === 'jsonParsed' ? toJsonParsed(tx) : tx);
      // The game's transactions are legacy ones.
      const game = ctx.history.transaction(params[0]);
      if (game !== null) return encode(versioned ? { ...game, version: 'legacy' as const } : game);
      const record = ctx.ledger.get(params[0]);
      if (record?.transaction === undefined) return null;
      const { version, signatures, message } = record.transaction;
      if (version !== 'legacy' && !versioned) {
        throw new RpcError(-32015, 'Transaction version (0) is not supported by the requesting client');
      }
      return encode({
        slot: record.slot,
        blockTime: record.blockTime,
        transaction: { signatures, message: message as unknown as Parameters<typeof toJsonParsed>[0]['transaction']['message'] },
        meta: record.meta,
        ...(versioned ? { version } : {}),
      });
    },
    devnet_rpcStats: () => ctx.rpcStats(),
    devnet_mintTokens: async (params) => {
      const owner = pubkeyParam(params[0], 'owner');
      const amount = params[1];
      if (typeof amount !== 'string' || !/^[1-9]\d{0,25}$/.test(amount)) throw invalidParams('amount must be a positive integer string');
      return ctx.mintTokens(owner, BigInt(amount));
    },
  };
}
