import type { MinerRound } from '@gridlab/contracts';
import { minerRoundSchema } from '@gridlab/contracts';
import { ndjsonLine } from './ndjson';
import { toWire } from './row';

const row: MinerRound = {
  roundId: 12,
  address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  settledAt: '2026-11-29T00:00:00.000Z',
  payoutRule: 'returns',
  squares: [0, 24],
  amounts: [1, 9_007_199_254_740_991],
  deployed: 9_007_199_254_740_991,
  deploys: 2,
  signer: 'EEEE1111111111111111111111111111',
  automated: true,
  automationStrategy: 0,
  slotsLeft: -3,
  slotsLeftLast: 0,
  solBack: 0,
  oreTopMiner: 100_000_000_000,
  oreSplit: 0,
  oreMotherlode: 7,
  topMiner: true,
  heldWinningSquare: false,
  adminFee: 1,
  protocolFee: 2,
  networkFee: 5000,
  priorityFee: 0,
  executorFee: 1500,
  checkpointDeposit: 10_000,
  net: -9_007_199_254_740_991,
};

describe('a ledger row as its NDJSON line', () => {
  it('is what JSON.stringify writes, for figures, nulls, lists and flags', () => {
    expect(ndjsonLine(row)).toBe(`${JSON.stringify(row)}\n`);
    const unknown: MinerRound = { ...row, squares: null, amounts: null, deployed: null, automationStrategy: null, solBack: null, oreTopMiner: null, oreSplit: null, oreMotherlode: null, topMiner: null, heldWinningSquare: null, adminFee: null, protocolFee: null, networkFee: null, priorityFee: null, executorFee: null, checkpointDeposit: null, net: null, automated: false, payoutRule: 'parimutuel' };
    expect(ndjsonLine(unknown)).toBe(`${JSON.stringify(unknown)}\n`);
    expect(ndjsonLine({ ...row, squares: [], amounts: [] })).toBe(`${JSON.stringify({ ...row, squares: [], amounts: [] })}\n`);
  });

  it('writes every field of the schema in the order the stored rows are read back', () => {
    const wire = toWire({ roundId: 3, minerId: 1, signerId: 1, squares: 5, amount: 10, amounts: null, solBack: 19, ore: 0, oreMotherlode: 0, adminFee: 1, protocolFee: 0, oreValue: 0, networkFee: 5000, priorityFee: 0, executorFee: 0, checkpointDeposit: 0, slotsLeft: 4, slotsLeftLast: 4, deploys: 1, strategy: -1, flags: 8 }, row.address, row.address, row.settledAt);
    expect(Object.keys(JSON.parse(ndjsonLine(wire)) as object)).toEqual(Object.keys(minerRoundSchema.properties));
    expect(ndjsonLine(wire)).toBe(`${JSON.stringify(wire)}\n`);
  });
});
