import fc from 'fast-check';
import { eventValidator, type Round } from '@gridlab/contracts';
import { RoundBatch, RoundRow } from '../round-batch';
import { CanonicalRoundReader } from './canonical-round';
import { completeLegacyRound } from './legacy-round';

const validateRound = eventValidator('roundSettled');

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const lamports = fc.oneof(fc.nat(), fc.maxSafeNat(), fc.constantFrom(0, 1, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER));
const squares = fc.array(lamports, { minLength: 25, maxLength: 25 });
const arbitraryRound: fc.Arbitrary<Round> = fc.record({
  id: fc.oneof(fc.nat(), fc.maxSafeNat()),
  deployed: squares,
  count: squares,
  winningSquare: fc.option(fc.integer({ min: 0, max: 24 })),
  totalDeployed: lamports,
  totalWinnings: lamports,
  totalVaulted: lamports,
  totalMiners: lamports,
  motherlode: lamports,
  topMinerReward: lamports,
  slotHash: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
  settledAt: fc
    .date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  payoutRule: fc.constantFrom('parimutuel' as const, 'returns' as const),
  oreReward: fc.option(lamports),
  topMiner: fc.option(fc.string({ unit: fc.constantFrom(...BASE58), minLength: 32, maxLength: 44 })),
  split: fc.option(fc.boolean()),
  productionCost: fc.option(lamports),
  source: fc.constantFrom('account' as const, 'transactions' as const, 'import' as const),
  motherlodePool: fc.option(lamports),
});

/** The bytes a row becomes: its COPY tuple, which is what the import stores. */
function tupleOf(row: RoundRow): Buffer {
  const batch = new RoundBatch(1);
  batch.push(row);
  return Buffer.from(batch.copyData());
}

/** What the general path makes of a line: JSON.parse, completion, the round schema; null if it refuses. */
function generalPath(line: string): Buffer | null {
  try {
    return tupleOf(new RoundRow().setRound(validateRound(completeLegacyRound(JSON.parse(line)))));
  } catch {
    return null;
  }
}

const reader = new CanonicalRoundReader();
function read(line: string): Buffer | null {
  // Bytes around the line, as in a file chunk: the reader must keep to [start, end).
  const bytes = Buffer.from(`1,2]\n${line}\n{"id":7`, 'utf8');
  const start = 5;
  const row = new RoundRow();
  return reader.read(bytes, start, bytes.length - 8, row) ? tupleOf(row) : null;
}

describe('CanonicalRoundReader', () => {
  it('reads every round as JSON.stringify (and /dump) writes it, to the row the general path makes', () => {
    fc.assert(
      fc.property(arbitraryRound, (round) => {
        const line = JSON.stringify(round);
        const expected = generalPath(line);
        // Years before 100 are valid, but Date.UTC would misread them: the general path takes them.
        if (Number(round.settledAt.slice(0, 4)) < 100) return expect(read(line)).toBeNull();
        expect(expected).not.toBeNull();
        expect(read(line)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts a changed line only when the general path does, with the same values', () => {
    const edit = fc.record({
      at: fc.nat(),
      kind: fc.constantFrom('replace', 'insert', 'delete'),
      char: fc.constantFrom(...'0123456789"-,.:[]{}eEnultrsfaAZTx+ \t\\0O'.split(''), 'é'),
    });
    let accepted = 0;
    fc.assert(
      fc.property(arbitraryRound, fc.array(edit, { minLength: 1, maxLength: 3 }), (round, edits) => {
        let line = JSON.stringify(round);
        for (const { at, kind, char } of edits) {
          const i = at % (line.length + 1);
          line = kind === 'insert' ? line.slice(0, i) + char + line.slice(i) : line.slice(0, i) + (kind === 'replace' ? char : '') + line.slice(i + 1);
        }
        const fast = read(line);
        if (fast === null) return; // the general path judges it
        accepted++;
        expect(fast).toEqual(generalPath(line));
      }),
      { numRuns: 5000 },
    );
    // Edits such as a digit for a digit keep a line canonical: the property was exercised.
    expect(accepted).toBeGreaterThan(100);
  });

  it('leaves to the general path valid lines of any other shape, and invalid ones', () => {
    const base = fc.sample(arbitraryRound, { numRuns: 1, seed: 7 })[0]!;
    const round: Round = { ...base, id: 42, settledAt: '2026-03-01T12:00:00.000Z', topMiner: 'A'.repeat(40), oreReward: 5 };
    const line = JSON.stringify(round);
    const { count: _count, ...withoutCount } = round;
    expect(read(line)).toEqual(generalPath(line));
    const refused = {
      'a space after a colon': line.replace('"id":42', '"id": 42'),
      'keys in another order': JSON.stringify({ ...withoutCount, count: round.count }),
      'an offset time': line.replace('12:00:00.000Z', '12:00:00.000+00:00'),
      'a leap second': line.replace('12:00:00.000Z', '23:59:60.000Z'),
      'a time without milliseconds': line.replace('12:00:00.000Z', '12:00:00Z'),
      'a trailing carriage return': `${line}\r`,
      'a leading zero': line.replace('"id":42', '"id":042'),
      'an exponent': line.replace('"id":42', '"id":42e0'),
      '2^53': line.replace('"id":42', `"id":${2 ** 53}`),
      'a negative number': line.replace('"id":42', '"id":-42'),
      'uppercase hex': line.replace(`"slotHash":"${round.slotHash}"`, `"slotHash":"${round.slotHash.toUpperCase().replace(/^[0-9]/, 'A')}"`),
      'a 31-character address': line.replace('A'.repeat(40), 'A'.repeat(31)),
      'a 45-character address': line.replace('A'.repeat(40), 'A'.repeat(45)),
      'a 0 in an address': line.replace('A'.repeat(40), `0${'A'.repeat(39)}`),
      'a winning square of 25': line.replace(/"winningSquare":(\d+|null)/, '"winningSquare":25'),
      '26 squares': line.replace('"deployed":[', '"deployed":[1,'),
      'February 30': line.replace('2026-03-01', '2026-02-30'),
      'an unknown key': line.replace('}', ',"x":1}'),
    };
    for (const [what, changed] of Object.entries(refused)) {
      expect([what, read(changed)]).toEqual([what, null]);
    }
  });
});
