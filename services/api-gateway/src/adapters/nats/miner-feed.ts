import { decodeEvent, type NatsConnection } from '@gridlab/bus';
import type { MinerDeployed, NatsNames, RoundMiners } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';

/** What the miner streams are told of: a round's miners once stored, and each deploy of the live round. */
export interface MinerFeedListener {
  settled(round: RoundMiners): void;
  deployed(deploy: MinerDeployed): void;
}

/**
 * `grid.miners.settled` and `grid.miners.deployed` for this gateway process: one plain
 * subscription each (every replica gets every message; JetStream's copy of the settled
 * rounds is the indexer's record, the streams' replay reads the ledger instead), each
 * message checked against its contract before any listener sees it.
 */
export function followMiners(nc: NatsConnection, names: NatsNames, listener: MinerFeedListener, logger: Logger): () => void {
  const settled = nc.subscribe(names.subjects.minersSettled, {
    callback: (error, msg) => {
      if (error !== null) return;
      let round: RoundMiners;
      try {
        round = decodeEvent('minersSettled', msg.data);
      } catch (e) {
        logger.warn('undecodable grid.miners.settled ignored', { err: e });
        return;
      }
      listener.settled(round);
    },
  });
  const deployed = nc.subscribe(names.subjects.minerDeployed, {
    callback: (error, msg) => {
      if (error !== null) return;
      let deploy: MinerDeployed;
      try {
        deploy = decodeEvent('minerDeployed', msg.data);
      } catch (e) {
        logger.warn('undecodable grid.miners.deployed ignored', { err: e });
        return;
      }
      listener.deployed(deploy);
    },
  });
  return () => {
    settled.unsubscribe();
    deployed.unsubscribe();
  };
}
