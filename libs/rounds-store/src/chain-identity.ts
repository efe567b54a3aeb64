import type { Pool } from '@gridlab/db';

/** The chain the stored rounds come from. */
export interface ChainIdentity {
  /** base58 genesis hash, as getGenesisHash answers it. */
  readonly genesisHash: string;
  readonly recordedAt: Date;
}

/** The indexer schema's record of which chain its rounds come from (one row). */
export class ChainIdentityStore {
  constructor(private readonly pool: Pool) {}

  /** The recorded identity, or null when none is recorded yet. */
  async recorded(): Promise<ChainIdentity | null> {
    const { rows } = await this.pool.query<{ genesis_hash: string; recorded_at: Date }>('SELECT genesis_hash, recorded_at FROM indexer.chain WHERE id = 1');
    const row = rows[0];
    return row === undefined ? null : { genesisHash: row.genesis_hash, recordedAt: row.recorded_at };
  }

  /** Records `genesisHash` unless an identity is recorded already; returns the one that stands. */
  async recordIfAbsent(genesisHash: string): Promise<ChainIdentity> {
    await this.pool.query('INSERT INTO indexer.chain (id, genesis_hash) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [genesisHash]);
    return (await this.recorded())!;
  }
}
