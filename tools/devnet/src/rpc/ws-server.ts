import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AccountStore, AccountView } from '../chain/account-store';
import type { Ledger, TxRecord } from '../chain/ledger';
import { accountJson, configOf } from './encoding';

type Subscription =
  | { kind: 'account'; socket: WebSocket; pubkey: string; encoding: string }
  | { kind: 'slot'; socket: WebSocket }
  | { kind: 'signature'; socket: WebSocket; signature: string };

/** "Going away": the server drops the connection. */
const IDLE_CLOSE_CODE = 1001;

const METHOD_KINDS: Record<string, Subscription['kind']> = {
  accountUnsubscribe: 'account',
  slotUnsubscribe: 'slot',
  signatureUnsubscribe: 'signature',
};

/**
 * Solana's PubSub over WebSocket: accountSubscribe, slotSubscribe, signatureSubscribe
 * and their unsubscribes. Notifications are sent synchronously from the write that
 * caused them.
 */
export class PubSubServer {
  private readonly subs = new Map<number, Subscription>();
  private readonly byAccount = new Map<string, Set<number>>();
  private nextId = 1;

  private constructor(
    private readonly wss: WebSocketServer,
    readonly port: number,
    private readonly ledger: Ledger,
    private readonly idleMs: number,
  ) {}

  /**
   * @param idleMs a socket that sends neither a message nor a ping frame for this long is
   *   closed, as providers drop idle sockets (0: never)
   */
  static async start(host: string, port: number, store: AccountStore, ledger: Ledger, idleMs = 0): Promise<PubSubServer> {
    const wss = new WebSocketServer({ host, port, perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      wss.once('listening', resolve);
      wss.once('error', reject);
    });
    const server = new PubSubServer(wss, (wss.address() as AddressInfo).port, ledger, idleMs);
    wss.on('connection', (socket) => server.accept(socket));
    store.onWrite((pubkey, account, slot) => server.accountChanged(pubkey, account, slot));
    ledger.onRecord((record) => server.signatureProcessed(record));
    return server;
  }

  /** Closes every client connection (a test hook: clients must reconnect). */
  dropAll(): void {
    for (const socket of this.wss.clients) socket.terminate();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  slotAdvanced(slot: number): void {
    for (const [id, sub] of this.subs) {
      if (sub.kind === 'slot') this.notify(sub.socket, 'slotNotification', id, { parent: slot - 1, root: Math.max(0, slot - 32), slot });
    }
  }

  private accept(socket: WebSocket): void {
    // Only what the client sends keeps a socket alive: notifications and pongs do not.
    const idle = this.idleMs > 0 ? setTimeout(() => socket.close(IDLE_CLOSE_CODE, 'idle timeout'), this.idleMs) : undefined;
    idle?.unref();
    socket.on('ping', () => idle?.refresh());
    socket.on('message', (raw) => {
      idle?.refresh();
      let request: { id?: unknown; method?: unknown; params?: unknown };
      try {
        request = JSON.parse((Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw)).toString()) as typeof request;
      } catch {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const reply = (result: unknown): void => socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, result }));
      const fail = (message: string): void =>
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, error: { code: -32602, message } }));
      const params = Array.isArray(request.params) ? request.params : [];
      switch (request.method) {
        case 'accountSubscribe': {
          if (typeof params[0] !== 'string') return fail('Invalid params: pubkey');
          const encoding = configOf(params[1])['encoding'];
          const id = this.add({ kind: 'account', socket, pubkey: params[0], encoding: typeof encoding === 'string' ? encoding : 'base64' });
          let set = this.byAccount.get(params[0]);
          if (set === undefined) this.byAccount.set(params[0], (set = new Set()));
          set.add(id);
          return reply(id);
        }
        case 'slotSubscribe':
          return reply(this.add({ kind: 'slot', socket }));
        case 'signatureSubscribe': {
          if (typeof params[0] !== 'string') return fail('Invalid params: signature');
          const id = this.add({ kind: 'signature', socket, signature: params[0] });
          reply(id);
          const record = this.ledger.get(params[0]);
          if (record !== undefined) this.signatureProcessed(record);
          return;
        }
        default: {
          const kind = typeof request.method === 'string' ? METHOD_KINDS[request.method] : undefined;
          if (kind === undefined) {
            socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, error: { code: -32601, message: 'Method not found' } }));
            return;
          }
          const sub = typeof params[0] === 'number' ? this.subs.get(params[0]) : undefined;
          const ok = sub !== undefined && sub.kind === kind && sub.socket === socket;
          if (ok) this.remove(params[0] as number);
          return reply(ok);
        }
      }
    });
    socket.on('close', () => {
      clearTimeout(idle);
      for (const [id, sub] of this.subs) if (sub.socket === socket) this.remove(id);
    });
    socket.on('error', () => socket.terminate());
  }

  private add(sub: Subscription): number {
    const id = this.nextId++;
    this.subs.set(id, sub);
    return id;
  }

  private remove(id: number): void {
    const sub = this.subs.get(id);
    this.subs.delete(id);
    if (sub?.kind === 'account') this.byAccount.get(sub.pubkey)?.delete(id);
  }

  private accountChanged(pubkey: string, account: AccountView, slot: number): void {
    const ids = this.byAccount.get(pubkey);
    if (ids === undefined) return;
    for (const id of ids) {
      const sub = this.subs.get(id);
      if (sub?.kind !== 'account') continue;
      this.notify(sub.socket, 'accountNotification', id, { context: { slot }, value: accountJson(account, sub.encoding) });
    }
  }

  private signatureProcessed(record: TxRecord): void {
    for (const [id, sub] of this.subs) {
      if (sub.kind !== 'signature' || sub.signature !== record.signature) continue;
      this.notify(sub.socket, 'signatureNotification', id, { context: { slot: record.slot }, value: { err: record.err } });
      // A signature subscription ends with its notification.
      this.subs.delete(id);
    }
  }

  private notify(socket: WebSocket, method: string, subscription: number, result: unknown): void {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(JSON.stringify({ jsonrpc: '2.0', method, params: { result, subscription } }));
  }
}
