import type { Pool } from '@gridlab/db';

/**
 * Used Sign-In With Solana nonces (`billing.siws_used_nonces`), written by the gateway,
 * whose role may only insert there; billing's nonce sweep deletes the expired ones.
 */
export class SiwsNonceLedger {
  constructor(private readonly pool: Pool) {}

  /**
   * Records `nonce` as used until `expiresAt`; false when it already was. One statement,
   * committed before it returns: of two sign-ins with one message, on any replicas, one
   * wins. No conflict target, so the gateway's INSERT privilege is enough.
   */
  async consume(nonce: string, expiresAt: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(`INSERT INTO billing.siws_used_nonces (nonce, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [nonce, expiresAt]);
    return rowCount === 1;
  }
}
