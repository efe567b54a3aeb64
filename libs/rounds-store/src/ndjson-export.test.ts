import fc from 'fast-check';
import type { Round } from '@gridlab/contracts';
import { encodeCopyBinary } from './round-batch';
import { BinaryRoundsToNdjson, writeIsoTime } from './ndjson-export';

/** A small seeded PRNG (mulberry32): the same cases every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integers at every digit-count boundary the encoder handles, up to MAX_SAFE_INTEGER. */
const EDGES = [0, 1, 9, 10, 99, 100, 999, 1000, 99_999_999, 100_000_000, 100_000_001, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 1e15, 1e15 + 7, Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER];
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function randomRound(random: () => number, id: number): Round {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const int = (): number => (random() < 0.3 ? pick(EDGES) : Math.floor(random() * 10 ** Math.floor(random() * 16)));
  const nullable = (): number | null => (random() < 0.2 ? null : int());
  // Instants from 1970 to 2200 (PostgreSQL's microseconds since 2000 stay exact doubles
  // within ±285 years), with and without milliseconds, including day boundaries.
  const ms = random() < 0.2 ? Math.floor(random() * 80_000) * 86_400_000 : Math.floor(random() * Date.UTC(2200, 0, 1));
  return {
    id,
    deployed: Array.from({ length: 25 }, int),
    count: Array.from({ length: 25 }, int),
    winningSquare: random() < 0.1 ? null : Math.floor(random() * 25),
    totalDeployed: int(),
    totalWinnings: int(),
    totalVaulted: int(),
    totalMiners: int(),
    motherlode: int(),
    topMinerReward: int(),
    slotHash: Array.from({ length: 64 }, () => '0123456789abcdef'[Math.floor(random() * 16)]).join(''),
    settledAt: new Date(ms).toISOString(),
    payoutRule: random() < 0.5 ? 'parimutuel' : 'returns',
    oreReward: nullable(),
    topMiner: random() < 0.2 ? null : Array.from({ length: 32 + Math.floor(random() * 13) }, () => pick([...ALPHABET])).join(''),
    split: pick([true, false, null]),
    productionCost: nullable(),
    source: pick(['account', 'transactions', 'import'] as const),
    motherlodePool: nullable(),
  };
}

/** Runs COPY bytes through the encoder in chunks of the given sizes (cycled), as a socket delivers them. */
async function encode(copy: Buffer, chunkSizes: readonly number[]): Promise<string> {
  const encoder = new BinaryRoundsToNdjson();
  const out: Buffer[] = [];
  encoder.on('data', (b: Buffer) => out.push(b));
  const done = new Promise((resolve, reject) => encoder.on('end', resolve).on('error', reject));
  for (let at = 0, i = 0; at < copy.length; i++) {
    const size = chunkSizes[i % chunkSizes.length]!;
    encoder.write(copy.subarray(at, at + size));
    at += size;
  }
  encoder.end();
  await done;
  return Buffer.concat(out).toString('latin1');
}

describe('BinaryRoundsToNdjson', () => {
  it('writes exactly JSON.stringify of every round, whatever the values and however the bytes are split', async () => {
    const random = prng(17);
    for (let run = 0; run < 20; run++) {
      const rounds = Array.from({ length: 200 }, (_, i) => randomRound(random, run * 1000 + i));
      const expected = rounds.map((r) => `${JSON.stringify(r)}\n`).join('');
      const chunks = run === 0 ? [1 << 20] : [1 + Math.floor(random() * 2000), 1 + Math.floor(random() * 7)];
      expect(await encode(encodeCopyBinary(rounds), chunks)).toBe(expected);
    }
  });
});

describe('writeIsoTime', () => {
  it('writes what toISOString writes, for every instant a Date holds, fractions of a millisecond included', () => {
    const out = Buffer.alloc(32);
    const limit = 8.64e15;
    const instants = fc.oneof(
      fc.integer({ min: -62_167_219_200_000 - 1000, max: 253_402_300_799_999 + 1000 }),
      fc.integer({ min: -limit, max: limit }),
      fc.double({ min: -limit, max: limit, noNaN: true }),
      fc.constantFrom(-62_167_219_200_000, 253_402_300_799_999, -1, -0.5, 0, 0.5, 951_782_400_000),
    );
    fc.assert(
      fc.property(instants, (ms) => {
        const end = writeIsoTime(out, 3, ms);
        expect(out.toString('latin1', 3, end)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });
});
