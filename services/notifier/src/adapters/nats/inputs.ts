import { decodeEvent, type NatsConnection } from '@gridlab/bus';
import type { EventName, EventPayload, NatsNames } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import type { AlertEngine } from '../../app/engine';

/**
 * What the rules are applied to: live snapshots, the live round's deploys, settled rounds,
 * their miner rows, the event log's events and the forward tests' decisions, each a plain
 * subscription on every replica
 * (firings are stored once by their dedup key, whichever replica sees the input first),
 * each message checked against its contract before the engine sees it.
 */
export function followInputs(nc: NatsConnection, names: NatsNames, engine: AlertEngine, logger: Logger): () => void {
  const follow = <E extends EventName>(event: E, take: (payload: EventPayload<E>) => Promise<void>) =>
    nc.subscribe(names.subjects[event], {
      callback: (error, msg) => {
        if (error !== null) return;
        let payload: EventPayload<E>;
        try {
          payload = decodeEvent(event, msg.data);
        } catch (e) {
          logger.warn('undecodable message ignored', { subject: msg.subject, err: e });
          return;
        }
        void take(payload);
      },
    });
  const subscriptions = [
    follow('liveUpdated', (s) => engine.live(s)),
    follow('minerDeployed', (d) => engine.deployed(d)),
    follow('roundSettled', (r) => engine.settled(r)),
    follow('minersSettled', (m) => engine.miners(m)),
    follow('eventAppended', (e) => engine.event(e)),
    follow('forwardDecided', (d) => engine.decided(d)),
  ];
  return () => {
    for (const s of subscriptions) s.unsubscribe();
  };
}
