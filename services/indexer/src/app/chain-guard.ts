import { decodeBoard, decodeRound, type OrePdas } from '@gridlab/chain';
import type { Logger } from '@gridlab/logger';
import type { ChainIdentities, ChainReader, RoundStore } from './ports';
import { legacyObjection, mismatch, type ChainVerdict } from '../domain/chain-identity';

export interface ChainGuardDeps {
  readonly rpc: ChainReader;
  readonly identities: ChainIdentities;
  readonly repo: Pick<RoundStore, 'latestId' | 'getRounds'>;
  readonly pdas: OrePdas;
  readonly logger: Logger;
}

/**
 * Checks the chain the RPC serves against the identity recorded with the stored rounds,
 * recording it first when none is (a new deployment, or data stored before identities,
 * adopted only when the chain agrees with it). Throws when the RPC or PostgreSQL fails.
 */
export async function checkChain(deps: ChainGuardDeps): Promise<ChainVerdict> {
  const current = await deps.rpc.getGenesisHash();
  let recorded = await deps.identities.recorded();
  if (recorded === null) {
    const latest = await deps.repo.latestId();
    if (latest !== null) {
      const [stored] = await deps.repo.getRounds({ fromId: latest, toId: latest });
      const { accounts } = await deps.rpc.getMultipleAccounts([deps.pdas.board.toBase58(), deps.pdas.round(latest).toBase58()]);
      const [board, round] = accounts;
      if (board === null || board === undefined) throw new Error('the board account does not exist');
      let chainSlotHashOfLatest: string | null = null;
      try {
        chainSlotHashOfLatest = round === null || round === undefined ? null : Buffer.from(decodeRound(round.data).slotHash).toString('hex');
      } catch {
        chainSlotHashOfLatest = null;
      }
      const objection = legacyObjection(current, {
        latestStoredId: latest,
        latestStoredSlotHash: stored?.slotHash ?? '',
        boardRoundId: decodeBoard(board.data).roundId,
        chainSlotHashOfLatest,
      });
      if (objection !== null) return objection;
    }
    recorded = await deps.identities.recordIfAbsent(current);
    if (recorded.genesisHash === current) {
      deps.logger.info('chain identity recorded', { genesisHash: current, storedRoundsAdopted: latest !== null });
    }
  }
  if (recorded.genesisHash !== current) return mismatch(current, recorded);
  return { ok: true, genesisHash: current, recordedAt: recorded.recordedAt };
}
