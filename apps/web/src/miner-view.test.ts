import type { MinerRound } from '@gridlab/client';
import { checkAddress, exportFileName, netCurve, rowOre, shortAddress, squareHeat } from './miner-view';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

const row = (fields: Partial<MinerRound>): MinerRound => ({ roundId: 1, address: WALLET, squares: [], amounts: [], ...fields }) as MinerRound;

describe('checkAddress', () => {
  it('accepts a base58 public key, trimmed', () => {
    expect(checkAddress(`  ${WALLET}\n`)).toEqual({ address: WALLET });
    expect(checkAddress('11111111111111111111111111111111')).toEqual({ address: '11111111111111111111111111111111' });
  });

  it('says what is wrong with anything else', () => {
    expect(checkAddress('   ')).toEqual({ error: 'Enter a wallet address.' });
    expect(checkAddress(`${WALLET.slice(0, 10)}0${WALLET.slice(11)}`)).toEqual({ error: expect.stringContaining('"0" is not a base58 character') });
    expect(checkAddress('abc')).toEqual({ error: 'Not a Solana address: it has 3 characters, an address has 32 to 44.' });
    // 44 base58 characters can be more than 32 bytes.
    expect(checkAddress('z'.repeat(44))).toEqual({ error: 'Not a Solana address: it does not decode to a 32-byte public key.' });
  });
});

describe('squareHeat', () => {
  it('counts the rounds and sums the lamports on each square', () => {
    const heat = squareHeat([
      row({ squares: [0, 24], amounts: [100, 200] }),
      row({ squares: [24], amounts: [50] }),
      row({ squares: null, amounts: null }),
    ]);
    expect(heat.rounds[0]).toBe(1);
    expect(heat.rounds[24]).toBe(2);
    expect(heat.lamports[24]).toBe(250);
    expect(heat.lamports[0]).toBe(100);
    expect(heat.rounds.reduce((a, b) => a + b, 0)).toBe(3);
    expect({ known: heat.known, unknown: heat.unknown }).toEqual({ known: 2, unknown: 1 });
  });

  it('is all zeros with no rows', () => {
    const heat = squareHeat([]);
    expect(heat.rounds).toHaveLength(25);
    expect(heat.lamports.every((v) => v === 0)).toBe(true);
  });
});

describe('rowOre', () => {
  it('adds every source and counts an unproven one as 0', () => {
    expect(rowOre(row({ oreTopMiner: 5, oreSplit: null, oreMotherlode: 7 }))).toBe(12);
  });
});

describe('netCurve', () => {
  const points = [
    { start: '2026-11-27T00:00:00Z', cumulativeNet: -1_000_000_000 },
    { start: '2026-11-28T00:00:00Z', cumulativeNet: 500_000_000 },
  ] as const;

  it('starts at 0 at the first bucket and ends each bucket at its running total', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const curve = netCurve({ bucket: 'day', points: points.map((p) => ({ ...p, rounds: 1, deployed: 0, solBack: 0, fees: 0, net: 0, ore: 0, cumulativeOre: 0 })) }, now);
    expect(curve.y).toEqual([0, -1, 0.5]);
    // The current day ends now, not at midnight.
    expect(curve.x).toEqual([Date.parse('2026-11-27T00:00:00Z') / 1000, Date.parse('2026-11-28T00:00:00Z') / 1000, now / 1000]);
  });

  it('is empty without points', () => {
    expect(netCurve({ bucket: 'hour', points: [] }, 0)).toEqual({ x: [], y: [] });
  });
});

describe('the small formats', () => {
  it('shortens a wallet and names its export', () => {
    expect(shortAddress(WALLET)).toBe('9xQe…VFin');
    expect(exportFileName(WALLET, 'csv')).toBe(`gridlab-miner-${WALLET}.csv`);
  });
});
