import { History, backtest, normalizeDsl } from '@gridlab/strategy';
import { syntheticRounds } from '@gridlab/testing';
import { SharedHistory, historyView, setVisibleLength, type HistoryBuffers } from './shared-history';

describe('a history in shared buffers', () => {
  // Both payout eras: the returns columns must be shared too.
  const rounds = syntheticRounds(5000, { seed: 3, voidedRate: 0.05, payoutRule: (i) => (i < 2500 ? 'parimutuel' : 'returns') });

  it('shares every column a History has (a column left private would silently stop growing)', () => {
    const shared = new SharedHistory(10);
    for (const r of rounds.slice(0, 100)) shared.append(r);
    const columns = Object.entries(shared.history).filter(([, v]) => ArrayBuffer.isView(v));
    expect(columns.length).toBeGreaterThanOrEqual(17);
    for (const [name, column] of columns) expect([name, (column as Uint8Array).buffer instanceof SharedArrayBuffer]).toEqual([name, true]);
  });

  it('grows into new shared buffers, announcing each set, and keeps every round', () => {
    const shared = new SharedHistory(10);
    const announced: HistoryBuffers[] = [];
    shared.onGrow = (b) => announced.push(b);
    for (const r of rounds) shared.append(r);
    expect(announced.length).toBeGreaterThan(0);
    expect(announced[announced.length - 1]).toBe(shared.buffersNow);
    expect(Object.values(shared.buffersNow.columns).every((b) => b instanceof SharedArrayBuffer)).toBe(true);
    expect(shared.history.capacity).toBe(shared.buffersNow.capacity);
    const plain = History.from(rounds);
    expect(shared.length).toBe(plain.length);
    expect(shared.history.settledCount).toBe(plain.settledCount);
    expect(shared.history.roundAt(4321)).toEqual(plain.roundAt(4321));
  });

  it('gives a reader exactly the first n rounds, replaying as a private history of them would', () => {
    const shared = new SharedHistory(1);
    for (const r of rounds) shared.append(r);
    const view = historyView(shared.buffersNow, 3000);
    const prefix = History.from(rounds.slice(0, 3000));
    expect([view.length, view.settledCount, view.lastId]).toEqual([prefix.length, prefix.settledCount, prefix.lastId]);
    const dsl = normalizeDsl({ base_strategy: 'spread', params: { bet_size_lamports: 1_000_000, num_squares: 3 } });
    expect(backtest(view, dsl)).toEqual(backtest(prefix, dsl));
    // The writer appending further changes nothing below the reader's length.
    setVisibleLength(view, 4000);
    expect(backtest(view, dsl, { toRoundId: rounds[2999]!.id })).toEqual(backtest(prefix, dsl));
    expect(() => setVisibleLength(view, shared.buffersNow.capacity + 1)).toThrow(RangeError);
  });
});
