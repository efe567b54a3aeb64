/**
 * Which chain the indexer may index: the one whose genesis hash is recorded with the
 * stored rounds. Pure decisions and the operator-facing wording; the adapters fetch the
 * hashes and rounds.
 */

/** The verdict on the chain the RPC serves. */
export type ChainVerdict =
  | { readonly ok: true; readonly genesisHash: string; readonly recordedAt: Date }
  | { readonly ok: false; readonly currentGenesisHash: string; readonly recordedGenesisHash: string | null; readonly reason: string };

const START_OVER =
  'To index this chain instead, start over with an empty indexer schema (locally: `make reset`); ' +
  '`gridlab admin chain` shows both identities and the steps. Otherwise point SOLANA_RPC_URL at the recorded chain.';

/** Another genesis hash than the recorded one: refused. */
export function mismatch(currentGenesisHash: string, recorded: { genesisHash: string; recordedAt: Date }): ChainVerdict {
  return {
    ok: false,
    currentGenesisHash,
    recordedGenesisHash: recorded.genesisHash,
    reason:
      `the RPC serves the chain with genesis hash ${currentGenesisHash}, but the stored rounds come from the chain with genesis hash ` +
      `${recorded.genesisHash} (recorded ${recorded.recordedAt.toISOString()}); refusing to mix rounds of another chain into them. ${START_OVER}`,
  };
}

/** What the chain shows of the newest stored round, for data stored before identities were recorded. */
export interface LegacyEvidence {
  readonly latestStoredId: number;
  readonly latestStoredSlotHash: string;
  /** The round the chain's board is at. */
  readonly boardRoundId: number;
  /** The chain's account of the newest stored round, when it still exists (hex slot hash). */
  readonly chainSlotHashOfLatest: string | null;
}

/**
 * Rounds stored before the chain identity was recorded are adopted for the current chain
 * only when it is consistent with them: its board is past the newest stored round, and
 * where that round's account still exists, it holds the same slot hash. Returns the
 * refusal, or null to adopt.
 */
export function legacyObjection(currentGenesisHash: string, evidence: LegacyEvidence): ChainVerdict | null {
  const problem =
    evidence.boardRoundId <= evidence.latestStoredId
      ? `the stored rounds reach round ${evidence.latestStoredId} but the chain's board is at round ${evidence.boardRoundId} (a chain started again from genesis, or another chain)`
      : evidence.chainSlotHashOfLatest !== null && evidence.chainSlotHashOfLatest !== evidence.latestStoredSlotHash
        ? `the chain's round ${evidence.latestStoredId} differs from the stored one (another chain)`
        : null;
  if (problem === null) return null;
  return {
    ok: false,
    currentGenesisHash,
    recordedGenesisHash: null,
    reason: `the stored rounds predate chain identities and do not match the chain the RPC serves (genesis hash ${currentGenesisHash}): ${problem}. ${START_OVER}`,
  };
}
