import type { ServerResponse } from 'node:http';
import type { FiringLog, StoredFiring } from '@gridlab/alerts-store';
import type { AlertFired, AlertStreamFiring } from '@gridlab/contracts';
import type { AlertFeedListener } from '../adapters/nats/alert-feed';
import { startEventStream } from './sse';

const PING_MS = 15_000;
const PING = ': ping\n\n';
/** Firings read per page of a Last-Event-ID replay. */
const REPLAY_PAGE = 500;
/** Replayed ids remembered to drop their live copies (a firing's message may arrive after the replay read it). */
const REMEMBERED_IDS = 1000;
/** A client with this much unsent is dropped (destroyed) once live; a replay waits for it to drain instead. */
const SLOW_CLIENT_BYTES = 1024 * 1024;
/** Live firings held for a client while its replay is written. */
const MAX_PENDING = 10_000;

interface Client {
  readonly res: ServerResponse;
  readonly owner: string;
  /** Ids the replay sent: their live copies are not sent again. */
  readonly replayed: Set<number>;
  /** Live firings that arrived during the replay; null once the client is live. */
  pending: AlertStreamFiring[] | null;
}

const frame = (firing: AlertStreamFiring): string => `event: firing\nid: ${firing.id}\ndata: ${JSON.stringify(firing)}\n\n`;

function fromStore(f: StoredFiring): AlertStreamFiring {
  return { id: f.id, ruleId: f.ruleId, webhookId: f.webhookId, firedAt: f.firedAt.toISOString(), payload: f.payload as AlertStreamFiring['payload'] };
}

/**
 * /alerts/stream: each subscriber's firings, from the firing feed this process follows
 * once, fanned out to that subscriber's streams only. With Last-Event-ID the firings after
 * it are read from PostgreSQL and sent first, oldest first, then the live ones, none twice:
 * the client is registered before the firings are read, live firings are held until the
 * replay is written, and a live firing the replay already sent is dropped by its id. Ids
 * are not compared otherwise: two notifier replicas may commit firings out of id order, and
 * a live firing with an id below the client's last one is new to it.
 */
export class AlertStream implements AlertFeedListener {
  private readonly byOwner = new Map<string, Set<Client>>();
  private readonly pingTimer: NodeJS.Timeout;

  constructor(private readonly firings: Pick<FiringLog, 'after'>) {
    this.pingTimer = setInterval(() => this.ping(), PING_MS);
    this.pingTimer.unref();
  }

  get size(): number {
    let n = 0;
    for (const set of this.byOwner.values()) n += set.size;
    return n;
  }

  /** Takes over an authorized request's response; `lastEventId` null: live firings only. */
  async attach(res: ServerResponse, headers: Record<string, string>, owner: string, lastEventId: number | null): Promise<void> {
    const client: Client = { res, owner, replayed: new Set(), pending: [] };
    this.add(client);
    res.on('close', () => this.remove(client));
    try {
      // The first page is read before the answer starts: a database that is away answers 503, not a stream that ends.
      let page = lastEventId === null ? [] : await this.firings.after(owner, lastEventId, REPLAY_PAGE);
      startEventStream(res, headers);
      res.write(': connected\n\n');
      while (page.length > 0) {
        for (const firing of page) this.writeReplayed(client, fromStore(firing));
        if (page.length < REPLAY_PAGE || res.destroyed) break;
        await drained(res);
        page = await this.firings.after(owner, page[page.length - 1]!.id, REPLAY_PAGE);
      }
      const pending = client.pending ?? [];
      client.pending = null;
      for (const firing of pending) this.writeLive(client, firing);
    } catch (error) {
      this.remove(client);
      if (res.headersSent) res.destroy();
      throw error;
    }
  }

  fired(message: AlertFired): void {
    const clients = this.byOwner.get(message.subscriberId);
    if (clients === undefined) return;
    const { subscriberId: _owner, ...firing } = message;
    for (const client of clients) {
      if (client.pending === null) this.writeLive(client, firing);
      else if (client.pending.push(firing) > MAX_PENDING) client.res.destroy();
    }
  }

  close(): void {
    clearInterval(this.pingTimer);
    for (const set of this.byOwner.values()) for (const client of set) client.res.end();
    this.byOwner.clear();
  }

  private writeReplayed(client: Client, firing: AlertStreamFiring): void {
    client.replayed.add(firing.id);
    // Only the newest replayed ids can still have a message on its way.
    if (client.replayed.size > REMEMBERED_IDS) client.replayed.delete(client.replayed.values().next().value!);
    if (!client.res.destroyed) client.res.write(frame(firing));
  }

  private writeLive(client: Client, firing: AlertStreamFiring): void {
    const { res } = client;
    if (client.replayed.has(firing.id) || res.writableEnded || res.destroyed) return;
    if (res.writableLength > SLOW_CLIENT_BYTES) {
      // Destroyed, not ended: an ended response would wait for a client that does not read.
      res.destroy();
      return;
    }
    res.write(frame(firing));
  }

  private add(client: Client): void {
    const set = this.byOwner.get(client.owner);
    if (set === undefined) this.byOwner.set(client.owner, new Set([client]));
    else set.add(client);
  }

  private remove(client: Client): void {
    const set = this.byOwner.get(client.owner);
    set?.delete(client);
    if (set?.size === 0) this.byOwner.delete(client.owner);
  }

  private ping(): void {
    for (const set of this.byOwner.values()) {
      for (const client of set) if (client.pending === null && !client.res.writableEnded && !client.res.destroyed) client.res.write(PING);
    }
  }
}

/** Resolves once `res` has written what it holds down to the slow-client bound, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  if (res.writableLength <= SLOW_CLIENT_BYTES || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
