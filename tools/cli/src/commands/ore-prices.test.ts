import { parseOrePrices } from './ore-prices';

describe('the ORE price series an operator gives', () => {
  it('reads day,lamports lines, skipping a header and blank lines', () => {
    expect(parseOrePrices('day,lamportsPerOre\n2026-11-01,412000000\n\n2026-11-02, 398000000\r\n')).toEqual([
      { day: '2026-11-01', lamportsPerOre: 412_000_000 },
      { day: '2026-11-02', lamportsPerOre: 398_000_000 },
    ]);
  });

  it('names the first line it cannot read', () => {
    expect(() => parseOrePrices('2026-11-01,1\n2026-11-02,0.4\n')).toThrow(/line 2/);
    expect(() => parseOrePrices('11/02/2026,400\n')).toThrow(/line 1/);
  });
});
