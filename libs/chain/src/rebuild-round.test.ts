import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import fc from 'fast-check';
import { encodeDeployArgs, encodeDeployEvent, encodeResetEvent, logInstructionData, VAR_VALUE_LOG_PREFIX, type ResetEventLength } from './events';
import { ORE_BASE_UNITS, SPLIT_ADDRESS } from './ore-layout';
import { rebuildRound } from './rebuild-round';
import { decodeRound, encodeRound, type RoundLayout } from './round.codec';
import { settleReturns, settleRound } from './settlement';
import { slotHashRng, winningSquare } from './rng';
import { toSettledRound } from './settled-round';
import { createAccountData, readOreTransaction, SYSTEM_PROGRAM, type InstructionJson, type TransactionJson } from './transactions';

const PROGRAM = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';
const BOARD = 'BrcSxdp1nXFzou1YyDnQJcPNBNHgoypZmTsyKBSLLXzi';
const ROUND = '9kYbBj3kBzp3Q5EgeyNWLMpUaDYTtrTvyXLTyWvEFjBf';
const NEXT_ROUND = 'FvYQqv2BFZCAPGCzZvYgUh2hWePt1bjTGh3rXQv3f3nN';
const IDS = { programId: PROGRAM, board: BOARD };
const ROUND_ID = 5000;

const key = (label: string): Uint8Array => new Uint8Array(createHash('sha256').update(label).digest());
const address = (label: string): string => bs58.encode(key(label));

interface Ix {
  readonly program: string;
  readonly accounts: readonly string[];
  readonly data: Uint8Array;
}

let sigs = 0;
/** A getTransaction (json) result as a node returns it. */
function tx(slot: number, top: readonly Ix[], inner: readonly { index: number; ixs: readonly Ix[] }[] = [], logs: string[] = [], err: unknown = null): TransactionJson {
  const keys: string[] = [];
  const at = (k: string): number => {
    let i = keys.indexOf(k);
    if (i < 0) i = keys.push(k) - 1;
    return i;
  };
  const json = (ix: Ix, stackHeight: number | null): InstructionJson => ({ programIdIndex: at(ix.program), accounts: ix.accounts.map(at), data: bs58.encode(ix.data), stackHeight });
  const instructions = top.map((ix) => json(ix, null));
  const innerInstructions = inner.map((g) => ({ index: g.index, instructions: g.ixs.map((ix) => json(ix, 2)) }));
  return {
    slot,
    blockTime: 1_790_000_000 + slot,
    transaction: { signatures: [bs58.encode(key(`sig-${sigs++}`))], message: { accountKeys: keys, instructions } },
    // The runtime's lines around the program's own, as a node returns them.
    meta: { err, innerInstructions, logMessages: [`Program ${PROGRAM} invoke [1]`, ...logs, `Program ${PROGRAM} success`], loadedAddresses: { writable: [], readonly: [] } },
  };
}

const log = (event: Uint8Array): Ix => ({ program: PROGRAM, accounts: [BOARD], data: logInstructionData(event) });

interface Deploy {
  readonly miner: number;
  readonly amount: number;
  readonly squares: number;
}

type EventMode = 'instructions' | 'raw-mask' | 'effective-mask';

interface Scenario {
  readonly layout: RoundLayout;
  readonly rule: 'parimutuel' | 'returns';
  readonly mode: EventMode;
  readonly resetLength: ResetEventLength;
  readonly minersMeaning: 'num_winners' | 'total_miners';
  readonly deploys: readonly Deploy[];
  readonly slotHash: Uint8Array;
  readonly split: boolean;
}

/** What the program does with the deploys: each miner's first deploy on a square counts. */
function play(deploys: readonly Deploy[]) {
  const deployed = new Array<number>(25).fill(0);
  const count = new Array<number>(25).fill(0);
  const held = new Map<number, number>();
  const effective: number[] = [];
  for (const d of deploys) {
    const mask = d.squares & ~(held.get(d.miner) ?? 0);
    held.set(d.miner, (held.get(d.miner) ?? 0) | mask);
    effective.push(mask);
    for (let s = 0; s < 25; s++) {
      if ((mask & (1 << s)) === 0) continue;
      deployed[s]! += d.amount;
      count[s]! += 1;
    }
  }
  const miners = [...held.values()].filter((m) => m !== 0).length;
  return { deployed, count, miners, effective };
}

/** The round's account as the program writes it, and its transactions. */
function chain(s: Scenario) {
  const { deployed, count, miners, effective } = play(s.deploys);
  const winner = winningSquare(s.slotHash);
  const voided = winner === null;
  const totals = s.rule === 'returns' && s.layout === 952 ? settleReturns(deployed, winner) : settleRound(deployed, winner);
  const total = deployed.reduce((a, b) => a + b, 0);
  const onWinner = winner === null ? 0 : deployed[winner]!;
  const reward = onWinner > 0 ? ORE_BASE_UNITS : 0;
  const topMiner = s.layout === 952 && reward > 0 ? (s.split ? bs58.decode(SPLIT_ADDRESS) : key(`miner-${s.deploys[0]!.miner}`)) : new Uint8Array(32);
  const current = s.layout === 952;
  const account = encodeRound(
    {
      id: ROUND_ID,
      deployed: current && voided ? new Array<number>(25).fill(0) : deployed,
      count,
      slotHash: s.slotHash,
      expiresAt: 1150 + 216_000,
      motherlode: reward > 0 ? 3 * ORE_BASE_UNITS : 0,
      topMiner,
      topMinerReward: reward,
      totalDeployed: total,
      totalMiners: miners,
      totalVaulted: totals.totalVaulted,
      totalWinnings: current && voided ? total : totals.totalWinnings,
      ...(current ? { rewards: [reward] } : {}),
    },
    s.layout,
  );
  const txs: TransactionJson[] = [];
  // The previous round's reset created this round's account.
  txs.push(tx(990, [{ program: PROGRAM, accounts: [address('crank'), BOARD, ROUND], data: new Uint8Array([9]) }], [{ index: 0, ixs: [{ program: SYSTEM_PROGRAM, accounts: [address('crank'), ROUND], data: createAccountData(1, s.layout, bs58.decode(PROGRAM)) }] }]));
  s.deploys.forEach((d, i) => {
    const authority = address(`miner-${d.miner}`);
    // deploy.rs's account order of the era: 7 accounts until 2025-12-08 (round 6th), 9 since (round 7th).
    const accounts =
      s.mode === 'instructions'
        ? [authority, authority, address('automation'), BOARD, address('miner-pda'), ROUND, SYSTEM_PROGRAM]
        : [authority, authority, address('automation'), BOARD, address('config'), address('miner-pda'), ROUND, SYSTEM_PROGRAM, PROGRAM];
    const top: Ix = { program: PROGRAM, accounts, data: encodeDeployArgs({ amount: d.amount, squares: d.squares }) };
    const event =
      s.mode === 'instructions'
        ? []
        : [log(encodeDeployEvent({ authority: key(`miner-${d.miner}`), amount: d.amount, mask: s.mode === 'raw-mask' ? d.squares : effective[i]!, roundId: ROUND_ID, signer: key(`miner-${d.miner}`), strategy: null, totalSquares: bitCount(effective[i]!), ts: 0 }))];
    txs.push(tx(1000 + i, [top], [{ index: 0, ixs: [{ program: SYSTEM_PROGRAM, accounts: [authority, ROUND], data: new Uint8Array([2, 0, 0, 0]) }, ...event] }]));
  });
  const reset = encodeResetEvent({
    length: s.resetLength,
    roundId: ROUND_ID,
    startSlot: 1000,
    endSlot: 1150,
    winningSquare: winner,
    topMiner,
    minersField: voided ? 0 : s.minersMeaning === 'total_miners' ? miners : count[winner]!,
    motherlode: reward > 0 ? 3 * ORE_BASE_UNITS : 0,
    totalDeployed: total,
    totalVaulted: totals.totalVaulted,
    totalWinnings: current && voided ? total : totals.totalWinnings,
    totalMinted: reward > 0 ? reward + 20_000_000_000 : 0,
    ts: 0,
    rng: voided ? 0n : slotHashRng(s.slotHash),
    deployedWinningSquare: onWinner,
  });
  txs.push(
    tx(
      1185,
      [{ program: PROGRAM, accounts: [address('crank'), BOARD, ROUND, NEXT_ROUND], data: new Uint8Array([9]) }],
      [{ index: 0, ixs: [{ program: SYSTEM_PROGRAM, accounts: [address('crank'), NEXT_ROUND], data: createAccountData(1, 952, bs58.decode(PROGRAM)) }, log(reset)] }],
      ['Program log: var seed: abc', `${VAR_VALUE_LOG_PREFIX}${bs58.encode(s.slotHash)}`],
    ),
  );
  return { account, txs };
}

function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m; m &= m - 1) n++;
  return n;
}

const rebuild = (txs: readonly TransactionJson[], fallbackLayout: RoundLayout | null = null) =>
  rebuildRound({ roundId: ROUND_ID, roundAddress: ROUND, transactions: txs.map((t) => readOreTransaction(t, IDS)), fallbackLayout });

const deployArb = fc.record({ miner: fc.integer({ min: 0, max: 12 }), amount: fc.integer({ min: 1, max: 5_000_000_000 }), squares: fc.integer({ min: 1, max: (1 << 25) - 1 }) });
const scenarioArb = fc
  .record({
    layout: fc.constantFrom<RoundLayout>(568, 952),
    rule: fc.constantFrom<'parimutuel' | 'returns'>('parimutuel', 'returns'),
    mode: fc.constantFrom<EventMode>('instructions', 'raw-mask', 'effective-mask'),
    resetLength: fc.constantFrom<ResetEventLength>(128, 136, 144),
    minersMeaning: fc.constantFrom<'num_winners' | 'total_miners'>('num_winners', 'total_miners'),
    deploys: fc.array(deployArb, { minLength: 1, maxLength: 40 }),
    slotHash: fc.oneof({ weight: 9, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }) }, { weight: 1, arbitrary: fc.constant(new Uint8Array(32).fill(0xff)) }),
    split: fc.boolean(),
  })
  .filter((s) => winningSquare(s.slotHash) !== null || s.layout === 952 || s.rule === 'parimutuel');

describe('rebuildRound', () => {
  it('gives the round account the program wrote, whatever the era of its events', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { account, txs } = chain(s);
        const rebuilt = rebuild(txs);
        expect(rebuilt).toMatchObject({ ok: true });
        if (!rebuilt.ok) return;
        const context = { payoutRule: s.rule, productionCost: null };
        const at = new Date(0);
        expect(toSettledRound(rebuilt.account, at, context)).toEqual(toSettledRound(decodeRound(account), at, context));
        expect(rebuilt.from).toBe(s.mode === 'instructions' ? 'instructions' : 'events');
        expect(rebuilt.settledAt).toEqual(new Date((1_790_000_000 + 1185) * 1000));
      }),
      { numRuns: 300 },
    );
  });

  const sample: Scenario = {
    layout: 952,
    rule: 'returns',
    mode: 'effective-mask',
    resetLength: 144,
    minersMeaning: 'total_miners',
    deploys: [
      { miner: 1, amount: 1_000_000, squares: 0b111 },
      { miner: 2, amount: 2_000_000, squares: 0b1 << 20 },
      { miner: 1, amount: 5_000_000, squares: 0b1100 },
    ],
    slotHash: new Uint8Array(32).map((_, i) => i + 1),
    split: false,
  };

  it('ignores Log instructions the program did not make: top level, another account, another program, a failed transaction', () => {
    const { txs } = chain(sample);
    const forgedReset = encodeResetEvent({ ...readOreTransaction(txs.at(-1)!, IDS).events[0]!, topMiner: new Uint8Array(32), totalWinnings: 1, length: 144, rng: 0n } as never);
    const forged = [
      tx(1186, [log(forgedReset)]),
      tx(1186, [{ program: address('other'), accounts: [], data: new Uint8Array([0]) }], [{ index: 0, ixs: [{ program: PROGRAM, accounts: [address('attacker')], data: logInstructionData(forgedReset) }] }]),
      tx(1186, [{ program: address('other'), accounts: [], data: new Uint8Array([0]) }], [{ index: 0, ixs: [{ program: address('other'), accounts: [BOARD], data: logInstructionData(forgedReset) }] }]),
      tx(1186, [{ program: PROGRAM, accounts: [], data: new Uint8Array([9]) }], [{ index: 0, ixs: [log(forgedReset)] }], [], { InstructionError: [0, 'Custom'] }),
    ];
    expect(forged.flatMap((t) => readOreTransaction(t, IDS).events)).toEqual([]);
    const honest = rebuild(txs);
    expect(rebuild([...forged, ...txs])).toEqual(honest);
    // Only the forged transactions: nothing settles.
    expect(rebuild([txs[0]!, ...forged])).toMatchObject({ ok: false, reason: 'not_settled' });
  });

  it('counts a miner\'s square once: a second deploy on it is skipped, as the program skips it', () => {
    const rebuilt = rebuild(chain({ ...sample, mode: 'raw-mask' }).txs);
    expect(rebuilt.ok && rebuilt.account.deployed.slice(0, 4)).toEqual([1_000_000, 1_000_000, 1_000_000, 5_000_000]);
    expect(rebuilt.ok && rebuilt.account.count.slice(0, 4)).toEqual([1, 1, 1, 1]);
    expect(rebuilt.ok && rebuilt.account.totalMiners).toBe(2);
  });

  it('counts only the Deploy instructions that name the round (a transaction may deploy to another)', () => {
    const { txs } = chain({ ...sample, mode: 'instructions' });
    const elsewhere = tx(1100, [{ program: PROGRAM, accounts: [address('miner-9'), address('miner-9'), address('automation'), BOARD, address('miner-pda'), NEXT_ROUND, SYSTEM_PROGRAM], data: encodeDeployArgs({ amount: 7, squares: 1 }) }]);
    expect(rebuild([...txs.slice(0, -1), elsewhere, txs.at(-1)!])).toEqual(rebuild(txs));
  });

  it('refuses a round whose deploys do not add up to its ResetEvent, saying which total', () => {
    const { txs } = chain(sample);
    const missingDeploy = [txs[0]!, ...txs.slice(2)];
    expect(rebuild(missingDeploy)).toMatchObject({ ok: false, reason: 'mismatch', detail: expect.stringContaining('total_deployed') });
  });

  it('refuses a reset that logged no randomness, and a round whose layout nothing shows', () => {
    const { txs } = chain(sample);
    const last = txs.at(-1)!;
    const noVar = { ...last, meta: { ...last.meta!, logMessages: [] } };
    expect(rebuild([...txs.slice(0, -1), noVar])).toMatchObject({ ok: false, reason: 'no_randomness' });
    // Without its creation, the round takes the layout of the round its reset created.
    expect(rebuild(txs.slice(1))).toMatchObject({ ok: true, account: { layout: 952 } });
    const resetOnly = txs.at(-1)!;
    const noCreation = { ...resetOnly, meta: { ...resetOnly.meta!, innerInstructions: [{ index: 0, instructions: resetOnly.meta!.innerInstructions![0]!.instructions.slice(1) }] } };
    expect(rebuild([...txs.slice(1, -1), noCreation])).toMatchObject({ ok: false, reason: 'unknown_layout' });
    expect(rebuild([...txs.slice(1, -1), noCreation], 568)).toMatchObject({ ok: true, account: { layout: 568 } });
  });

  it('refuses a slot hash that does not give the event\'s winning square', () => {
    const { txs } = chain(sample);
    const last = txs.at(-1)!;
    const other = { ...last, meta: { ...last.meta!, logMessages: [`Program ${PROGRAM} invoke [1]`, `${VAR_VALUE_LOG_PREFIX}${bs58.encode(new Uint8Array(32).fill(9))}`, `Program ${PROGRAM} success`] } };
    expect(rebuild([...txs.slice(0, -1), other])).toMatchObject({ ok: false, reason: 'mismatch', detail: expect.stringContaining('winning square') });
  });
});
