import type { ServerResponse } from 'node:http';
import type { MinerDeployed, MinerRound, RoundMiners } from '@gridlab/contracts';
import type { MinerLedgerReads } from '@gridlab/miners-store';
import type { MinerFeedListener } from '../adapters/nats/miner-feed';
import { startEventStream } from './sse';

const PING_MS = 15_000;
const PING = ': ping\n\n';
/** Rows read per page of a Last-Event-ID replay. */
const REPLAY_PAGE = 1000;
/**
 * Pages read at most for one replay: a client that was away longer gets the newest
 * rounds only (its ids jump; the ledger itself is /miners/{address}/rounds).
 */
const MAX_REPLAY_PAGES = 10;
/** A client with this much unsent is dropped (destroyed); it resumes with Last-Event-ID. */
const SLOW_CLIENT_BYTES = 1024 * 1024;
/** Live events held for a client while its replay is read. */
const MAX_PENDING = 10_000;

type Live = { readonly kind: 'round'; readonly row: MinerRound } | { readonly kind: 'deploy'; readonly deploy: MinerDeployed };

interface Client {
  readonly res: ServerResponse;
  readonly address: string;
  /** The newest round sent (or the client's Last-Event-ID): no round at or below it is sent again. */
  cursor: number;
  /** Live events that arrived during the replay; null once the client is live. */
  pending: Live[] | null;
}

const roundFrame = (row: MinerRound): string => `event: round\nid: ${row.roundId}\ndata: ${JSON.stringify(row)}\n\n`;
const deployFrame = (deploy: MinerDeployed): string => `event: deploy\ndata: ${JSON.stringify(deploy)}\n\n`;

/**
 * /miners/{address}/stream: each wallet's deploys and settled rounds, from the miner feed
 * this process follows once, fanned out to the streams of that wallet only. With
 * Last-Event-ID the wallet's rounds after it are sent first, oldest first, then the live
 * ones, with no duplicate across the boundary: the client is registered before the
 * ledger is read, live events are held until the replay is written, and every round is
 * filtered by the client's cursor.
 */
export class MinerStream implements MinerFeedListener {
  private readonly byAddress = new Map<string, Set<Client>>();
  private readonly pingTimer: NodeJS.Timeout;

  constructor(private readonly reads: Pick<MinerLedgerReads, 'rounds'>) {
    this.pingTimer = setInterval(() => this.ping(), PING_MS);
    this.pingTimer.unref();
  }

  get size(): number {
    let n = 0;
    for (const set of this.byAddress.values()) n += set.size;
    return n;
  }

  /** Takes over an authorized request's response; `lastEventId` null: live events only. */
  async attach(res: ServerResponse, headers: Record<string, string>, address: string, lastEventId: number | null): Promise<void> {
    const client: Client = { res, address, cursor: lastEventId ?? -1, pending: [] };
    this.add(client);
    res.on('close', () => this.remove(client));
    try {
      const replay = lastEventId === null ? [] : await this.roundsAfter(address, lastEventId);
      startEventStream(res, headers);
      res.write(': connected\n\n');
      for (const row of replay) this.writeRound(client, row);
      const pending = client.pending ?? [];
      client.pending = null;
      for (const event of pending) this.writeLive(client, event);
    } catch (error) {
      this.remove(client);
      if (res.headersSent) res.destroy();
      throw error;
    }
  }

  settled(round: RoundMiners): void {
    for (const row of round.miners) {
      const clients = this.byAddress.get(row.address);
      if (clients === undefined) continue;
      for (const client of clients) this.deliver(client, { kind: 'round', row });
    }
  }

  deployed(deploy: MinerDeployed): void {
    const clients = this.byAddress.get(deploy.address);
    if (clients === undefined) return;
    for (const client of clients) this.deliver(client, { kind: 'deploy', deploy });
  }

  close(): void {
    clearInterval(this.pingTimer);
    for (const set of this.byAddress.values()) for (const client of set) client.res.end();
    this.byAddress.clear();
  }

  /** The wallet's rounds above `after`, oldest first (the ledger is read newest first, page by page, down to it). */
  private async roundsAfter(address: string, after: number): Promise<MinerRound[]> {
    const newestFirst: MinerRound[] = [];
    let before: number | undefined;
    for (let page = 0; page < MAX_REPLAY_PAGES; page++) {
      const read = await this.reads.rounds(address, before === undefined ? { limit: REPLAY_PAGE } : { before, limit: REPLAY_PAGE });
      if (read === null) break;
      const above = read.rounds.filter((row) => row.roundId > after);
      newestFirst.push(...above);
      if (above.length < read.rounds.length || read.nextBefore === null || read.nextBefore <= after + 1) break;
      before = read.nextBefore;
    }
    return newestFirst.reverse();
  }

  private deliver(client: Client, event: Live): void {
    if (client.pending !== null) {
      client.pending.push(event);
      if (client.pending.length > MAX_PENDING) client.res.destroy();
      return;
    }
    this.writeLive(client, event);
  }

  private writeLive(client: Client, event: Live): void {
    if (event.kind === 'round') this.writeRound(client, event.row);
    else this.write(client, deployFrame(event.deploy));
  }

  private writeRound(client: Client, row: MinerRound): void {
    if (row.roundId <= client.cursor) return;
    client.cursor = row.roundId;
    this.write(client, roundFrame(row));
  }

  private write(client: Client, frame: string): void {
    const { res } = client;
    if (res.writableEnded || res.destroyed) return;
    if (res.writableLength > SLOW_CLIENT_BYTES) {
      // Destroyed, not ended: an ended response would wait for a client that does not read.
      res.destroy();
      return;
    }
    res.write(frame);
  }

  private add(client: Client): void {
    const set = this.byAddress.get(client.address);
    if (set === undefined) this.byAddress.set(client.address, new Set([client]));
    else set.add(client);
  }

  private remove(client: Client): void {
    const set = this.byAddress.get(client.address);
    set?.delete(client);
    if (set?.size === 0) this.byAddress.delete(client.address);
  }

  private ping(): void {
    for (const set of this.byAddress.values()) {
      for (const client of set) if (client.pending === null && !client.res.writableEnded && !client.res.destroyed) client.res.write(PING);
    }
  }
}
