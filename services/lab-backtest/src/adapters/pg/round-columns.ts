import type { Pool } from '@gridlab/db';
import { OutOfOrder, RoundColumnsReader } from '@gridlab/rounds-store';
import type { RoundSource } from '../../app/ports';
import type { SharedHistory } from '../../domain/shared-history';

/**
 * The history's source: the indexer's rounds through rounds-store's bulk reader (the
 * indexer owns the table; this service only reads it through that package).
 */
export class RoundColumns implements RoundSource {
  private readonly reader: RoundColumnsReader;

  constructor(pool: Pool) {
    this.reader = new RoundColumnsReader(pool);
  }

  totals(): Promise<{ count: number; lastId: number | null }> {
    return this.reader.totals();
  }

  async appendAfter(into: SharedHistory, afterId: number | null, upToId: number): Promise<number> {
    if (afterId === null && into.length === 0 && Number.isSafeInteger(upToId)) {
      // A whole load: storage order is cheaper, unless the table is not in id order.
      try {
        return await this.reader.copyAllInStorageOrder(into, upToId);
      } catch (error) {
        if (!(error instanceof OutOfOrder)) throw error;
        into.clear();
      }
    }
    return this.reader.copyRange(into, afterId, upToId);
  }
}
