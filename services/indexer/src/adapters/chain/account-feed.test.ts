import { createLogger } from '@gridlab/logger';
import type { SolanaRpc } from '@gridlab/chain';
import { AccountFeed } from './account-feed';

describe('AccountFeed', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('started after it was stopped (a session stopped while it started), opens no socket and leaves no timer', () => {
    const calls: string[] = [];
    const rpc = { getMultipleAccounts: (keys: readonly string[]) => (calls.push(keys.join()), Promise.resolve({ slot: 1, accounts: [] })) } as unknown as SolanaRpc;
    const logger = createLogger({ service: 'account-feed-test', silent: true });
    const timersBefore = jest.getTimerCount();
    const feed = new AccountFeed({
      // Nothing listens here: a connection attempt would fail and schedule a reconnect timer.
      wsUrl: 'ws://127.0.0.1:9',
      rpc,
      pollIntervalMs: 10,
      logger,
      counters: { wsReconnect: () => undefined, rpcError: () => undefined },
      onUpdate: () => undefined,
    });
    feed.watch(['board']);
    feed.stop();
    feed.start();
    expect(jest.getTimerCount()).toBe(timersBefore);
    jest.advanceTimersByTime(100);
    expect(calls).toEqual([]);
  });
});
