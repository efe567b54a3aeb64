import type { Logger } from '@gridlab/logger';
import WebSocket from 'ws';
import type { SolanaRpc } from '@gridlab/chain';

import type { AccountUpdate, AccountWatcher } from '../../app/ports';

interface FeedCounters {
  wsReconnect(): void;
  rpcError(): void;
}

interface FeedOptions {
  readonly wsUrl: string;
  readonly rpc: SolanaRpc;
  readonly pollIntervalMs: number;
  readonly logger: Logger;
  readonly counters: FeedCounters;
  readonly onUpdate: AccountUpdate;
  /** How often the socket is pinged; one not answering by the next ping is replaced. Default 30 s. */
  readonly pingIntervalMs?: number;
}

const MAX_BACKOFF_MS = 10_000;
/** Providers close sockets idle for minutes (Helius: 10); a ping every 30 s keeps ours busy. */
const DEFAULT_PING_MS = 30_000;

/**
 * Watches a set of accounts two ways at once: WebSocket `accountSubscribe` for speed,
 * and `getMultipleAccounts` polling as a safety net, so a dropped or silent socket
 * loses nothing. The socket reconnects with exponential backoff; polling errors are
 * counted and retried on the next tick. A heartbeat pings the socket, so a provider that
 * drops idle sockets keeps it, and replaces one that stopped answering (a half-open
 * connection never closes by itself). Consumers deduplicate (same data, same slot).
 */
export class AccountFeed implements AccountWatcher {
  private readonly watched = new Set<string>();
  private readonly subscriptions = new Map<number, string>();
  private readonly pending = new Map<number, string>();
  private socket: WebSocket | undefined;
  private nextRequestId = 1;
  private backoffMs = 250;
  private pollTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private polling = false;

  constructor(private readonly options: FeedOptions) {}

  start(): void {
    // A feed stopped before it started (its session stopped while starting) opens nothing.
    if (this.stopped) return;
    this.connect();
    this.pollTimer = setInterval(() => void this.poll(), this.options.pollIntervalMs);
  }

  /** Replaces the watched set (the board and the current round), resubscribing as needed. */
  watch(pubkeys: readonly string[]): void {
    const next = new Set(pubkeys);
    const same = next.size === this.watched.size && [...next].every((p) => this.watched.has(p));
    if (same) return;
    this.watched.clear();
    for (const p of next) this.watched.add(p);
    this.resubscribe();
  }

  /** Reads every watched account now (used at start and after a reconnect). */
  async poll(): Promise<void> {
    if (this.polling || this.watched.size === 0 || this.stopped) return;
    this.polling = true;
    try {
      const keys = [...this.watched];
      const { slot, accounts } = await this.options.rpc.getMultipleAccounts(keys);
      accounts.forEach((a) => {
        if (a !== null) this.options.onUpdate(a.pubkey, a.data, slot, 'poll');
      });
    } catch (error) {
      this.options.counters.rpcError();
      this.options.logger.warn('account poll failed', { err: error });
    } finally {
      this.polling = false;
    }
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pingTimer);
    this.socket?.terminate();
  }

  /** Pings the socket; one that has not answered since the last ping is dead: replaced. */
  private heartbeat(socket: WebSocket): void {
    clearInterval(this.pingTimer);
    let answered = true;
    socket.on('pong', () => (answered = true));
    socket.on('message', () => (answered = true));
    this.pingTimer = setInterval(() => {
      if (socket !== this.socket || socket.readyState !== WebSocket.OPEN) return;
      if (!answered) {
        this.options.logger.warn('account socket stopped answering pings; reconnecting');
        socket.terminate();
        return;
      }
      answered = false;
      socket.ping();
    }, this.options.pingIntervalMs ?? DEFAULT_PING_MS);
  }

  private connect(): void {
    if (this.stopped) return;
    const socket = new WebSocket(this.options.wsUrl, { perMessageDeflate: false });
    this.socket = socket;
    socket.on('open', () => {
      this.backoffMs = 250;
      this.heartbeat(socket);
      this.resubscribe();
      void this.poll();
    });
    socket.on('message', (raw) => this.onMessage((Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw)).toString()));
    // Terminating a socket still connecting (stop() does) emits an error: expected then, not logged.
    socket.on('error', (error) => {
      if (!this.stopped) this.options.logger.warn('account socket error', { err: error });
    });
    socket.on('close', () => {
      if (this.stopped || this.socket !== socket) return;
      clearInterval(this.pingTimer);
      this.options.counters.wsReconnect();
      this.subscriptions.clear();
      this.pending.clear();
      const delay = this.backoffMs;
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
      this.options.logger.warn('account socket closed; reconnecting', { delayMs: delay });
      this.reconnectTimer = setTimeout(() => this.connect(), delay);
    });
  }

  private resubscribe(): void {
    const socket = this.socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) return;
    for (const [id, pubkey] of this.subscriptions) {
      if (!this.watched.has(pubkey)) {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: this.nextRequestId++, method: 'accountUnsubscribe', params: [id] }));
        this.subscriptions.delete(id);
      }
    }
    const subscribed = new Set([...this.subscriptions.values(), ...this.pending.values()]);
    for (const pubkey of this.watched) {
      if (subscribed.has(pubkey)) continue;
      const requestId = this.nextRequestId++;
      this.pending.set(requestId, pubkey);
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', id: requestId, method: 'accountSubscribe', params: [pubkey, { encoding: 'base64', commitment: 'confirmed' }] }),
      );
    }
  }

  private onMessage(text: string): void {
    let message: { id?: number; result?: unknown; method?: string; params?: { subscription: number; result: { context: { slot: number }; value: { data: [string, string] } | null } } };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      this.options.logger.warn('malformed socket message');
      return;
    }
    if (message.method === 'accountNotification' && message.params !== undefined) {
      const pubkey = this.subscriptions.get(message.params.subscription);
      const value = message.params.result.value;
      if (pubkey !== undefined && value !== null) {
        this.options.onUpdate(pubkey, Buffer.from(value.data[0], 'base64'), message.params.result.context.slot, 'ws');
      }
      return;
    }
    if (typeof message.id === 'number' && this.pending.has(message.id)) {
      const pubkey = this.pending.get(message.id)!;
      this.pending.delete(message.id);
      if (typeof message.result === 'number') {
        if (this.watched.has(pubkey)) this.subscriptions.set(message.result, pubkey);
        else this.socket?.send(JSON.stringify({ jsonrpc: '2.0', id: this.nextRequestId++, method: 'accountUnsubscribe', params: [message.result] }));
      }
    }
  }
}
