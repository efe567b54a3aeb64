import { REORDER_WINDOW_MS, ageSeconds, isStale, replaces, withStaleField } from './live-freshness';

const at = (ms: number) => new Date(Date.UTC(2025, 0, 1) + ms).toISOString();

describe('live snapshot rules', () => {
  it('keeps the higher slot against late deliveries, and a newer build of the same slot', () => {
    const held = { slot: 1000, updatedAt: at(0) };
    expect(replaces(held, { slot: 1001, updatedAt: at(-50) })).toBe(true);
    expect(replaces(held, { slot: 1000, updatedAt: at(10) })).toBe(true);
    expect(replaces(held, { slot: 1000, updatedAt: at(0) })).toBe(false);
    expect(replaces(held, { slot: 999, updatedAt: at(200) })).toBe(false);
    expect(replaces(held, { slot: 999, updatedAt: at(REORDER_WINDOW_MS) })).toBe(false);
  });

  it('lets the chain running now replace a snapshot of a chain that is gone (a lower slot, observed later)', () => {
    const stale = { slot: 250_500_000, updatedAt: at(0) };
    expect(replaces(stale, { slot: 250_000_010, updatedAt: at(REORDER_WINDOW_MS + 1) })).toBe(true);
    expect(replaces(stale, { slot: 250_000_010, updatedAt: at(11 * 60_000) })).toBe(true);
    // Held past the staleness threshold: whatever arrives now is better.
    expect(replaces(stale, { slot: 250_000_010, updatedAt: at(1000) }, true)).toBe(true);
  });

  it('measures age in whole seconds and calls a snapshot stale past the threshold', () => {
    const now = Date.UTC(2025, 0, 1) + 95_400;
    expect(ageSeconds(Date.parse(at(0)), now)).toBe(95);
    expect(ageSeconds(Date.parse(at(100_000)), now)).toBe(0);
    expect(isStale(Date.parse(at(0)), now, 90)).toBe(true);
    expect(isStale(Date.parse(at(10_000)), now, 90)).toBe(false);
  });

  it('adds the stale member to the published JSON', () => {
    const json = Buffer.from(JSON.stringify({ roundId: 7, prevRound: { id: 6 } }));
    expect(JSON.parse(withStaleField(json, true).toString())).toEqual({ roundId: 7, prevRound: { id: 6 }, stale: true });
    expect(JSON.parse(withStaleField(Buffer.from('{ }'), false).toString())).toEqual({ stale: false });
  });
});
