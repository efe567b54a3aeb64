/**
 * A round's ledger rows from its deploys and transactions, every figure worked by hand
 * from checkpoint.rs (70763fc, `returns`) and deploy.rs in the comments.
 */
import { minerRounds, type LedgerInput } from './miner-ledger';
import { ROUND_LEN_CURRENT } from './ore-layout';
import type { RoundDeploy } from './rebuild-round';
import type { RoundAccount } from './round.codec';
import type { OreTransaction } from './transactions';

const ROUND = 'Round111111111111111111111111111111111111111';
const [A, B, C, E] = ['AAAA1111111111111111111111111111', 'BBBB1111111111111111111111111111', 'CCCC1111111111111111111111111111', 'EEEE1111111111111111111111111111'];

function reverseBits(v: bigint): bigint {
  let out = 0n;
  for (let i = 0n; i < 64n; i++) if ((v >> i) & 1n) out |= 1n << (63n - i);
  return out;
}

/** An rng whose square is `square` and whose top-miner sample over `total` lands in [lo, hi). */
function rngFor(square: number, total: bigint, lo: bigint, hi: bigint): bigint {
  for (let r = BigInt(square); ; r += 25n) {
    const sample = reverseBits(r) % total;
    if (sample >= lo && sample < hi) return r;
  }
}

function slotHashOf(rng: bigint): Uint8Array {
  const bytes = new Uint8Array(32);
  new DataView(bytes.buffer).setBigUint64(0, rng, true);
  return bytes;
}

const deployed = new Array<number>(25).fill(0);
deployed[3] = 4_000_000; // A 1,000,000 then B 3,000,000
deployed[7] = 5_000_000; // B 3,000,000 then C 2,000,000
deployed[9] = 500_000; // C's second deploy

function account(rng: bigint): RoundAccount {
  return {
    layout: ROUND_LEN_CURRENT,
    id: 42,
    deployed,
    slotHash: slotHashOf(rng),
    count: deployed.map((d) => (d > 0 ? 1 : 0)),
    expiresAt: null,
    motherlode: 0,
    rentPayer: A,
    topMiner: A,
    topMinerReward: 100_000_000_000,
    totalDeployed: 9_500_000,
    totalMiners: 3,
    totalVaulted: 0,
    totalWinnings: 0,
    mass: null,
    rewards: null,
    split: false,
  };
}

const deploy = (authority: string, signer: string, signature: string, squares: number | null, amount: number | null, slotsLeft: number, strategy: RoundDeploy['strategy'] = null): RoundDeploy => ({
  authority,
  signer,
  strategy,
  slot: 1000 - slotsLeft,
  slotsLeft,
  signature,
  squares,
  amount,
});

const applied: RoundDeploy[] = [
  deploy(A, A, 'txA', 1 << 3, 1_000_000, 40),
  deploy(B, E, 'txB', (1 << 3) | (1 << 7), 3_000_000, 1, 1),
  deploy(C, C, 'txC1', 1 << 7, 2_000_000, 30),
  // Asked for 7 and 9: 7 already held, skipped (the rebuild gives the squares taken).
  deploy(C, C, 'txC2', 1 << 9, 500_000, 2),
];

function tx(signature: string, feePayer: string, fee: number, call: Partial<OreTransaction['deploys'][number]> & { authority: string; signer: string }, created: OreTransaction['created'] = []): OreTransaction {
  return {
    signature,
    slot: 1,
    blockTime: null,
    failed: false,
    feePayer,
    fee,
    signatures: 1,
    events: [],
    deploys: [
      {
        args: { amount: 0, squares: 0 },
        rounds: [ROUND],
        roundGains: [null],
        miners: [`miner-${call.authority}`],
        minerGains: [0],
        authorityGain: 0,
        automationGain: 0,
        automated: call.signer !== call.authority,
        ...call,
      },
    ],
    varValue: null,
    created,
    skipped: [],
  };
}

const transactions: OreTransaction[] = [
  // A pays 5,000 a signature and 2,000 of priority, and its first checkpoint deposit.
  tx('txA', A, 7_000, { authority: A, signer: A, minerGains: [10_000] }),
  // The executor pays the transaction; B's automation pays its stake (6,000,000) and the
  // executor's fee (1,500); B's Miner account is created here with 1,500,000 of rent and the deposit.
  tx('txB', E, 5_000, { authority: B, signer: E, automationGain: -6_001_500, minerGains: [1_510_000] }, [
    { address: `miner-${B}`, space: 100, owner: 'ore', lamports: 1_500_000 },
  ]),
  tx('txC1', C, 5_000, { authority: C, signer: C }),
  tx('txC2', C, 15_000, { authority: C, signer: C }),
];

const input = (rng: bigint, over: Partial<LedgerInput> = {}): LedgerInput => ({
  account: account(rng),
  roundAddress: ROUND,
  settledAt: '2026-11-29T00:00:00.000Z',
  payoutRule: 'returns',
  unknown: { deployed: 0, count: 0, totalMiners: false },
  applied,
  transactions,
  ...over,
});

describe("a round's ledger rows", () => {
  // Square 3 wins; the sample lands in A's range [0, 1,000,000) (A deployed on it first).
  const rng = rngFor(3, 4_000_000n, 0n, 1_000_000n);
  const rows = minerRounds(input(rng));

  it('has one row per wallet, in the order of its first deploy, with its deploys', () => {
    expect(rows.map((r) => [r.address, r.deploys, r.signer, r.automated, r.automationStrategy, r.slotsLeft, r.slotsLeftLast])).toEqual([
      [A, 1, A, false, null, 40, 40],
      [B, 1, E, true, 1, 1, 1],
      [C, 2, C, false, null, 30, 2],
    ]);
    expect(rows.map((r) => [r.squares, r.amounts, r.deployed])).toEqual([
      [[3], [1_000_000], 1_000_000],
      [[3, 7], [3_000_000, 3_000_000], 6_000_000],
      [[7, 9], [2_000_000, 500_000], 2_500_000],
    ]);
  });

  it('settles each wallet as its checkpoint does', () => {
    // Square 3 (T = 4,000,000, admin 40,000): A floor(1e6 * 3,960,000 / 4e6) = 990,000, admin 10,000;
    //   B floor(3e6 * 3,960,000 / 4e6) = 2,970,000, admin 30,000.
    // Square 7 (T = 5,000,000, admin 50,000, protocol floor(4,950,000 / 10) = 495,000, returned 4,455,000):
    //   B after admin floor(3e6 * 4,950,000 / 5e6) = 2,970,000 (admin 30,000), back floor(3e6 * 4,455,000 / 5e6) = 2,673,000 (protocol 297,000);
    //   C after admin 1,980,000 (admin 20,000), back 1,782,000 (protocol 198,000).
    // Square 9 (T = 500,000, admin 5,000, protocol floor(495,000 / 10) = 49,500): C back 445,500, admin 5,000, protocol 49,500.
    expect(rows.map((r) => [r.solBack, r.adminFee, r.protocolFee, r.heldWinningSquare, r.topMiner, r.oreTopMiner, r.oreSplit])).toEqual([
      [990_000, 10_000, 0, true, true, 100_000_000_000, 0],
      [2_970_000 + 2_673_000, 60_000, 297_000, true, false, 0, 0],
      [1_782_000 + 445_500, 25_000, 247_500, false, false, 0, 0],
    ]);
  });

  it('gives the top-miner reward to whoever deployed on the winning square where the sample lands', () => {
    // B's range on square 3 is [1,000,000, 4,000,000): it deployed after A.
    const other = minerRounds(input(rngFor(3, 4_000_000n, 1_000_000n, 4_000_000n)));
    expect(other.map((r) => r.topMiner)).toEqual([false, true, false]);
  });

  it('charges each wallet the fees of the transactions it paid, its executor fee and its deposit', () => {
    expect(rows.map((r) => [r.networkFee, r.priorityFee, r.executorFee, r.checkpointDeposit])).toEqual([
      [5_000, 2_000, 0, 10_000],
      [0, 0, 1_500, 10_000],
      [10_000, 10_000, 0, 0],
    ]);
    // net = SOL back - stake - network - priority - executor: A 990,000 - 1,000,000 - 7,000.
    expect(rows.map((r) => r.net)).toEqual([-17_000, 5_643_000 - 6_000_000 - 1_500, 2_227_500 - 2_500_000 - 20_000]);
  });

  it('does not prove the executor fee when the automation closed and its balance is not shown', () => {
    const unshown = transactions.map((t) => (t.signature === 'txB' ? { ...t, deploys: [{ ...t.deploys[0]!, automationGain: null }] } : t));
    expect(minerRounds(input(rng, { transactions: unshown }))[1]).toMatchObject({ executorFee: null, net: null });
  });

  it("counts a wallet's deposit and executor fee once a transaction, however many of its deploys the transaction carries", () => {
    // B's automation deploys twice in one executor transaction (squares 3, then 7): the
    // balances are the transaction's, so the fee is what the automation lost beyond both
    // stakes (6,001,500 - 6,000,000), and the deposit is counted once.
    const [first, second] = [deploy(B, E, 'txB', 1 << 3, 3_000_000, 1, 1), deploy(B, E, 'txB', 1 << 7, 3_000_000, 1, 0)];
    const twice = applied.flatMap((d) => (d.authority === B ? [first, second] : [d]));
    const call = transactions[1]!.deploys[0]!;
    const carried = transactions.map((t) => (t.signature === 'txB' ? { ...t, deploys: [call, call] } : t));
    const b = minerRounds(input(rng, { applied: twice, transactions: carried }))[1]!;
    expect(b).toMatchObject({ deploys: 2, squares: [3, 7], executorFee: 1_500, checkpointDeposit: 10_000, networkFee: 0 });
    // The strategy of its first deploy that logged one.
    expect(b.automationStrategy).toBe(1);
  });

  it('does not prove an executor fee the balances make negative', () => {
    // The automation lost less than the stake it moved: not a fee the program takes.
    const short = transactions.map((t) => (t.signature === 'txB' ? { ...t, deploys: [{ ...t.deploys[0]!, automationGain: -5_999_000 }] } : t));
    expect(minerRounds(input(rng, { transactions: short }))[1]).toMatchObject({ executorFee: null, net: null });
  });

  it('leaves every outcome null in a round whose stakes the chain does not all show', () => {
    const hidden = applied.map((d) => (d.authority === B ? { ...d, squares: null, amount: null, strategy: 'automated' as const } : d));
    const partial = minerRounds(input(rng, { applied: hidden, unknown: { deployed: (1 << 3) | (1 << 7), count: (1 << 3) | (1 << 7), totalMiners: false } }));
    expect(partial.map((r) => [r.squares, r.solBack, r.topMiner, r.adminFee, r.net])).toEqual([
      [[3], null, null, null, null],
      [null, null, null, null, null],
      [[7, 9], null, null, null, null],
    ]);
    expect(partial[1]!.automationStrategy).toBeNull();
    expect(partial[1]!.automated).toBe(true);
  });

  it('refunds every stake of a voided round', () => {
    const voided = { ...account(rng), slotHash: new Uint8Array(32) };
    const refunded = minerRounds(input(rng, { account: voided }));
    expect(refunded.map((r) => [r.solBack, r.adminFee, r.heldWinningSquare])).toEqual([
      [1_000_000, 0, false],
      [6_000_000, 0, false],
      [2_500_000, 0, false],
    ]);
  });
});
