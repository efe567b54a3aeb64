import type { KnownRound } from '@gridlab/contracts';
import { History } from '@gridlab/strategy';
import { syntheticRounds } from '@gridlab/testing';
import { SharedHistory } from '../../domain/shared-history';
import { OutOfOrder, TupleParser } from '@gridlab/rounds-store';

const TWO_32 = 0x1_0000_0000;

/** PostgreSQL's binary COPY of the thirteen columns the loader asks for. */
function copyBinary(rounds: readonly KnownRound[]): Buffer {
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)];
  const int8 = (v: number): Buffer => {
    const b = Buffer.alloc(12);
    b.writeInt32BE(8, 0);
    b.writeInt32BE(Math.floor(v / TWO_32), 4);
    b.writeUInt32BE(v >>> 0, 8);
    return b;
  };
  const packed = (values: readonly number[]): Buffer => {
    const b = Buffer.alloc(4 + 200);
    b.writeInt32BE(200, 0);
    values.forEach((v, i) => {
      b.writeUInt32LE(v % TWO_32, 4 + i * 8);
      b.writeUInt32LE(Math.floor(v / TWO_32), 8 + i * 8);
    });
    return b;
  };
  const nullable = (v: number | null): Buffer => (v === null ? Buffer.from([0xff, 0xff, 0xff, 0xff]) : int8(v));
  for (const r of rounds) {
    const fields = Buffer.alloc(2);
    fields.writeInt16BE(13);
    const winning = Buffer.alloc(r.winningSquare === null ? 4 : 6);
    if (r.winningSquare === null) winning.writeInt32BE(-1);
    else {
      winning.writeInt32BE(2);
      winning.writeInt16BE(r.winningSquare, 4);
    }
    parts.push(fields, int8(r.id), packed(r.deployed), packed(r.count), winning, int8(r.totalDeployed), int8(r.totalWinnings), int8(r.totalMiners));
    const rule = Buffer.alloc(6);
    rule.writeInt32BE(2);
    rule.writeInt16BE(r.payoutRule === 'returns' ? 1 : 0, 4);
    const split = r.split === null ? Buffer.from([0xff, 0xff, 0xff, 0xff]) : Buffer.from([0, 0, 0, 1, r.split ? 1 : 0]);
    const hash = Buffer.alloc(36);
    hash.writeInt32BE(32);
    Buffer.from(r.slotHash, 'hex').copy(hash, 4);
    parts.push(rule, nullable(r.oreReward), int8(r.motherlode), split, nullable(r.productionCost), hash);
  }
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1);
  parts.push(trailer);
  return Buffer.concat(parts);
}

function expectSameHistory(actual: History, expected: History): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.settledCount).toBe(expected.settledCount);
  const n = expected.length;
  const columns = ['ids', 'winning', 'totalDeployed', 'totalWinnings', 'totalMiners', 'sumDeployed', 'winnerDeployed', 'ordinals'] as const;
  const returnsColumns = ['rule', 'oreReward', 'motherlode', 'split', 'productionCost', 'drawHi', 'drawLo'] as const;
  for (const column of [...columns, ...returnsColumns]) {
    expect([column, Array.from(actual[column].subarray(0, n))]).toEqual([column, Array.from(expected[column].subarray(0, n))]);
  }
  expect(Array.from(actual.deployed.subarray(0, n * 25))).toEqual(Array.from(expected.deployed.subarray(0, n * 25)));
  expect(Array.from(actual.count.subarray(0, n * 25))).toEqual(Array.from(expected.count.subarray(0, n * 25)));
}

/** Feeds `bytes` to a fresh parser in chunks whose sizes come from `sizes` (cycled). */
function parse(bytes: Buffer, sizes: readonly number[], maxId?: number): SharedHistory {
  const shared = new SharedHistory(1);
  const parser = new TupleParser(shared, maxId);
  let o = 0;
  for (let i = 0; o < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    // Copies, as the socket would deliver them: the parser must not keep views of old chunks.
    parser.push(Buffer.from(bytes.subarray(o, o + size)));
    o += size;
  }
  parser.end();
  return shared;
}

describe('binary COPY of rounds into the shared history', () => {
  // Both eras, as the table holds them: parimutuel, then returns (split, drawn, motherlode).
  const rounds = syntheticRounds(300, { seed: 9, firstId: 2 ** 40, voidedRate: 0.1, payoutRule: (i) => (i < 120 ? 'parimutuel' : 'returns') });
  // A lamport value above 2^32 and a large count exercise both halves of the packed u64.
  rounds[5] = { ...rounds[5]!, deployed: rounds[5]!.deployed.map((d, i) => (i === 3 ? 5 * TWO_32 + 7 : d)), totalDeployed: rounds[5]!.totalDeployed + 5 * TWO_32 };
  // A returns round with an unknown production cost and ORE reward (nullable columns).
  rounds[200] = { ...rounds[200]!, productionCost: null, oreReward: null };
  const bytes = copyBinary(rounds);
  const expected = History.from(rounds);

  it('carries the returns columns: rule, ORE reward, motherlode, split, cost and the draw', () => {
    const h = parse(bytes, [bytes.length]).history;
    expect(h.rule[119]).toBe(0);
    expect(h.rule[120]).toBe(1);
    expect(Array.from(h.split.subarray(120, 300))).toContain(1);
    expect(Array.from(h.drawHi.subarray(120, 300)).some((v) => v !== 0)).toBe(true);
    expect(h.productionCost[200]).toBe(0);
    expect(h.oreReward[200]).toBe(0);
    expect(h.productionCost[201]).toBe(rounds[201]!.productionCost);
  });

  it('gives the same columns as History.from, whatever the chunk boundaries', () => {
    expectSameHistory(parse(bytes, [bytes.length]).history, expected);
    expectSameHistory(parse(bytes, [1]).history, expected);
    expectSameHistory(parse(bytes, [7, 463, 464, 465, 1000, 3]).history, expected);
    let seed = 17;
    const random = Array.from({ length: 64 }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 1500 + 1);
    expectSameHistory(parse(bytes, random).history, expected);
  });

  it('refuses rounds whose ids do not increase, so the loader can read the table in key order instead', () => {
    const swapped = copyBinary([rounds[1]!, rounds[0]!, rounds[2]!]);
    expect(() => parse(swapped, [swapped.length])).toThrow(OutOfOrder);
  });

  it('reads past rounds above its last id, wherever they are stored (rows stored after the totals the load asked for)', () => {
    const [a, b, c, d] = [rounds[0]!, rounds[1]!, rounds[2]!, rounds[3]!];
    // d sits between b and c in storage order (stored in free space), and after c.
    const bytesWithNewer = copyBinary([a, b, d, c, rounds[4]!]);
    expectSameHistory(parse(bytesWithNewer, [bytesWithNewer.length], c.id).history, History.from([a, b, c]));
    expectSameHistory(parse(bytesWithNewer, [5, 300], c.id).history, History.from([a, b, c]));
    expect(() => parse(bytesWithNewer, [bytesWithNewer.length], d.id)).toThrow(OutOfOrder);
  });

  it('refuses a COPY that ends mid-tuple', () => {
    expect(() => parse(bytes.subarray(0, bytes.length - 100), [4096])).toThrow(/mid-tuple/);
  });
});
