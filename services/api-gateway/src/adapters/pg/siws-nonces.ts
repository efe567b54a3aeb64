import type { SiwsNonceLedger } from '@gridlab/billing-store';
import { UnavailableError } from '@gridlab/errors';
import type { SiwsNonces } from '../../app/ports';

/**
 * Used sign-in nonces in PostgreSQL (billing's ledger, shared by every replica): durable,
 * so no cache failover forgets one and lets a captured message sign in again. When
 * PostgreSQL cannot answer, the sign-in is refused (it throws): a replay must never pass.
 */
export class PgSiwsNonces implements SiwsNonces {
  constructor(private readonly ledger: SiwsNonceLedger) {}

  async consume(nonce: string, untilMs: number): Promise<boolean> {
    try {
      return await this.ledger.consume(nonce, new Date(untilMs));
    } catch (error) {
      throw new UnavailableError('wallet sign-in is unavailable for a moment; sign in with an API key or try again', { cause: error });
    }
  }
}
