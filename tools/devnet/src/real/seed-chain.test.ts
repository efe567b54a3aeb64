import { createHash } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import { SeedChain } from './seed-chain';

/** The chain computed whole: the far end from the devnet's seed, each seed before it the hash of the next. */
function wholeChain(devnetSeed: number, length: number): Uint8Array[] {
  const seeds = new Array<Uint8Array>(length);
  seeds[length - 1] = new Uint8Array(createHash('sha256').update(`gridlab-devnet-entropy:${devnetSeed}`).digest());
  for (let k = length - 1; k > 0; k--) seeds[k - 1] = keccak_256(seeds[k]!);
  return seeds;
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('the entropy seed chain', () => {
  it('reveals, round after round, the seed whose hash the previous round revealed (across kept segments)', () => {
    const length = 300;
    const chain = new SeedChain(9, length);
    const whole = wholeChain(9, length);
    expect(Array.from({ length }, (_, k) => hex(chain.seed(k)))).toEqual(whole.map(hex));
    // `next` makes the Var's revealed seed the commitment: the first round's seed must hash to it.
    expect(hex(chain.commitment)).toBe(hex(keccak_256(whole[0]!)));
  });

  it('differs from one devnet seed to another', () => {
    expect(hex(new SeedChain(1, 10).seed(3))).not.toBe(hex(new SeedChain(2, 10).seed(3)));
  });

  it('says so when the rounds outrun it', () => {
    expect(() => new SeedChain(9, 10).seed(10)).toThrow(/has 10 seeds/);
  });
});
