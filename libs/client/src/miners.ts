import type { MinerRound } from './types.ts';

/**
 * A deploy of the live round, as /miners/{address}/stream sends it (`event: deploy`). The
 * OpenAPI document does not carry it (the stream's body is text); this is the contracts'
 * MinerDeployed (grid.miners.deployed), kept equal to it by a type test.
 */
export interface MinerDeployed {
  readonly roundId: number;
  /** The authority it deployed for. */
  readonly address: string;
  readonly signer: string;
  readonly signature: string;
  readonly slot: number;
  /** Squares it took (a square the miner already held is skipped); null where not shown. */
  readonly squares: number[] | null;
  /** Lamports on each square. */
  readonly amount: number | null;
  readonly automated: boolean;
  readonly automationStrategy: number | null;
}

/** What minerStream() yields: a deploy of the wallet in the live round, or its row of a settled round. */
export type MinerStreamEvent = { readonly type: 'deploy'; readonly deploy: MinerDeployed } | { readonly type: 'round'; readonly round: MinerRound };

/** The formats a wallet's ledger exports in. */
export type MinerExportFormat = 'ndjson' | 'csv';

export const MINER_EXPORT_MEDIA: Readonly<Record<MinerExportFormat, string>> = { ndjson: 'application/x-ndjson', csv: 'text/csv' };
