import type { MinerRound } from '@gridlab/contracts';
import { MinerRows } from './miner-rows';

const A = 'AAAA1111111111111111111111111111';
const B = 'BBBB1111111111111111111111111111';

function wire(over: Partial<MinerRound>): MinerRound {
  return {
    roundId: 9,
    address: A,
    settledAt: '2026-01-02T03:04:05.000Z',
    payoutRule: 'returns',
    squares: [1, 4],
    amounts: [10, 10],
    deployed: 20,
    deploys: 1,
    signer: A,
    automated: false,
    automationStrategy: null,
    slotsLeft: 40,
    slotsLeftLast: 40,
    solBack: 18,
    oreTopMiner: 0,
    oreSplit: 0,
    oreMotherlode: 0,
    topMiner: false,
    heldWinningSquare: true,
    adminFee: 1,
    protocolFee: 1,
    networkFee: 5000,
    priorityFee: 0,
    executorFee: 0,
    checkpointDeposit: 0,
    net: -5002,
    ...over,
  };
}

describe('MinerRows', () => {
  it('gives back every wire row it packed: nulls, amounts that differ, no squares, big and negative figures', () => {
    const rows = [
      wire({}),
      wire({ address: B, signer: A, squares: [0, 7, 24], amounts: [5, 2 ** 40, 1], deployed: 2 ** 40 + 6, automated: true, automationStrategy: 3, topMiner: true, oreTopMiner: 2 ** 50 }),
      wire({ address: 'C'.repeat(32), squares: null, amounts: null, deployed: null, solBack: null, topMiner: null, heldWinningSquare: null, net: null, executorFee: null }),
      wire({ address: 'D'.repeat(32), squares: [], amounts: [], deployed: 0, deploys: 3, slotsLeft: -2, slotsLeftLast: -9, net: -Number.MAX_SAFE_INTEGER }),
    ];
    const packed = MinerRows.of(rows);
    expect(packed.length).toBe(4);
    expect(packed.rows()).toEqual(rows);
    expect([packed.roundId, packed.settledAt, packed.payoutRule]).toEqual([9, rows[0]!.settledAt, 'returns']);
    expect(packed.squareMask(1)).toBe(1 | (1 << 7) | (1 << 24));
    expect([packed.uniformAmount(0), packed.uniformAmount(1), packed.uniformAmount(2), packed.uniformAmount(3)]).toEqual([10, null, null, 0]);
  });

  it('lists a wire row given out of square order in square order', () => {
    const packed = MinerRows.of([wire({ squares: [6, 2], amounts: [7, 3] })]);
    expect(packed.row(0)).toMatchObject({ squares: [2, 6], amounts: [3, 7] });
  });

  it("refuses rows of another round, and an empty set without its round", () => {
    expect(() => MinerRows.of([wire({}), wire({ roundId: 10 })])).toThrow(/round 10/);
    expect(() => MinerRows.of([wire({}), wire({ payoutRule: 'parimutuel' })])).toThrow(/parimutuel/);
    expect(() => MinerRows.of([])).toThrow();
    expect(MinerRows.of([], { roundId: 3, settledAt: rowsTime, payoutRule: 'returns' }).rows()).toEqual([]);
  });

  it('holds no more rows than it was built for', () => {
    const builder = MinerRows.builder({ roundId: 1, settledAt: rowsTime, payoutRule: 'returns' }, 1);
    const { roundId: _r, settledAt: _s, payoutRule: _p, squares: _q, amounts: _a, ...rest } = wire({});
    builder.push({ ...rest, squares: 0, stake: null });
    expect(() => builder.push({ ...rest, squares: 0, stake: null })).toThrow(RangeError);
  });
});

const rowsTime = '2026-01-02T03:04:05.000Z';
