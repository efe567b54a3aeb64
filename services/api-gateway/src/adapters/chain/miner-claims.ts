import { decodeMinerClaims, OrePdas, type SolanaRpc } from '@gridlab/chain';
import type { MinerSummary } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';

/** How long an answer (or a failure) is reused for the same wallet: a summary polled by a dashboard reads the chain once per window. */
export const CLAIMS_TTL_MS = 5_000;
/** Wallets kept in the cache at most (oldest dropped first). */
const MAX_ENTRIES = 10_000;

export type Claimable = MinerSummary['claimable'];

/** What a wallet can claim now, read from its Miner account. */
export interface MinerClaimsReader {
  /** Null when it has no Miner account, the chain did not answer or the account did not decode (never throws). */
  claimable(authority: string): Promise<Claimable>;
}

interface Entry {
  readonly atMs: number;
  readonly value: Promise<Claimable>;
}

/**
 * Reads the wallet's Miner PDA (`getMultipleAccounts`, confirmed), cached per wallet for a few seconds
 * (concurrent summaries of one wallet share one call). Failures are logged at debug and
 * answered null: the summary is served from the ledger whatever the RPC does.
 */
export class RpcMinerClaims implements MinerClaimsReader {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly rpc: Pick<SolanaRpc, 'getAccount'>,
    private readonly pdas: OrePdas,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  claimable(authority: string): Promise<Claimable> {
    const now = this.now();
    const held = this.cache.get(authority);
    if (held !== undefined && now - held.atMs < CLAIMS_TTL_MS) return held.value;
    const value = this.read(authority);
    this.cache.delete(authority);
    this.cache.set(authority, { atMs: now, value });
    if (this.cache.size > MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return value;
  }

  private async read(authority: string): Promise<Claimable> {
    try {
      const account = await this.rpc.getAccount(this.pdas.miner(authority).toBase58());
      // Not the program's (a closed and reused address): nothing of it is the wallet's to claim.
      if (account === null || account.owner !== this.pdas.programId.toBase58()) return null;
      const claims = decodeMinerClaims(account.data);
      return { sol: claims.rewardsSol, ore: claims.rewardsOre, refinedOre: claims.refinedOre, checkpointedRound: claims.checkpointId };
    } catch (error) {
      this.logger.debug('miner account not read', { authority, err: error });
      return null;
    }
  }
}

/** Without SOLANA_RPC_URL: nothing is read, claimable is null. */
export const NO_MINER_CLAIMS: MinerClaimsReader = { claimable: async () => null };
