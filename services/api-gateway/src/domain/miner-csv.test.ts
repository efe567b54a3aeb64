import type { MinerRound } from '@gridlab/contracts';
import { MINER_CSV_COLUMNS, minerCsvHeader, minerCsvRow } from './miner-csv';

const ROW: MinerRound = {
  roundId: 7,
  address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  settledAt: '2026-11-01T00:07:00.000Z',
  payoutRule: 'parimutuel',
  squares: [0, 24],
  amounts: [10, 20],
  deployed: 30,
  deploys: 2,
  signer: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  automated: true,
  automationStrategy: 1,
  slotsLeft: 50,
  slotsLeftLast: 3,
  solBack: null,
  oreTopMiner: null,
  oreSplit: null,
  oreMotherlode: null,
  topMiner: null,
  heldWinningSquare: false,
  adminFee: 0,
  protocolFee: 0,
  networkFee: 10_000,
  priorityFee: 0,
  executorFee: 0,
  checkpointDeposit: 0,
  net: null,
};

describe('the miner ledger as CSV', () => {
  it("has a header of MinerRound's fields in schema order, CRLF-ended", () => {
    expect(minerCsvHeader()).toBe(`${MINER_CSV_COLUMNS.join(',')}\r\n`);
    expect(MINER_CSV_COLUMNS.slice(0, 4)).toEqual(['roundId', 'address', 'settledAt', 'payoutRule']);
    expect(MINER_CSV_COLUMNS[MINER_CSV_COLUMNS.length - 1]).toBe('net');
    expect(MINER_CSV_COLUMNS).toHaveLength(Object.keys(ROW).length);
  });

  it('writes lists `;`-separated, nulls empty, booleans and numbers as written', () => {
    expect(minerCsvRow(ROW)).toBe(
      '7,9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin,2026-11-01T00:07:00.000Z,parimutuel,0;24,10;20,30,2,9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin,true,1,50,3,,,,,,false,0,0,10000,0,0,0,\r\n',
    );
    expect(minerCsvRow({ ...ROW, squares: null, amounts: [] }).split(',').slice(4, 6)).toEqual(['', '']);
  });

  it('quotes a field holding a comma, a quote or a line break (RFC 4180), and only those', () => {
    const odd = { ...ROW, payoutRule: 'a,"b"\nc' } as unknown as MinerRound;
    expect(minerCsvRow(odd)).toContain(',"a,""b""\nc",');
    expect(minerCsvRow(ROW)).not.toContain('"');
  });
});
