import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import fc from 'fast-check';
import { encodeDeployArgs, encodeDeployEvent, encodeResetEvent, logInstructionData, VAR_VALUE_LOG_PREFIX, type ResetEventLength } from './events';
import { ORE_BASE_UNITS } from '@gridlab/contracts';
import { SPLIT_ADDRESS } from './ore-layout';
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

const rebuild = (txs: readonly TransactionJson[], fallbackLayout: RoundLayout | null = null, listDeploys = true) =>
  rebuildRound({ roundId: ROUND_ID, roundAddress: ROUND, transactions: txs.map((t) => readOreTransaction(t, IDS)), fallbackLayout, listDeploys });

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
        // Every deploy in the order it ran: its miner, signer, slot, transaction, the squares it took and its amount.
        const { effective } = play(s.deploys);
        // Unasked, the round alone: no list.
        expect(rebuild(txs, null, false)).toMatchObject({ ok: true, applied: [] });
        expect(rebuilt.applied).toEqual(
          s.deploys.map((d, i) => ({ authority: address(`miner-${d.miner}`), signer: address(`miner-${d.miner}`), strategy: null, slot: 1000 + i, slotsLeft: 150 - i, signature: txs[i + 1]!.transaction.signatures[0], squares: effective[i], amount: d.amount })),
        );
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

describe('rebuildRound, a round whose automated deploys do not show their squares', () => {
  // Square 0 wins: the slot hash's first u64 is 25 and the others 0 (rng 25; 25 % 25 = 0).
  const SQUARE_0_WINS = new Uint8Array(32);
  SQUARE_0_WINS[0] = 25;
  const VOIDED = new Uint8Array(32).fill(0xff);
  const AUTOMATION = address('automation-pda');

  interface Call {
    readonly miner: string;
    /** Who signs: the miner, or its automation's executor. */
    readonly signer?: string;
    /** The instruction's arguments (an executor passes whatever it likes). */
    readonly amount: number;
    readonly squares: number;
    /** Lamports the automation account paid in the transaction. */
    readonly automationPaid?: number;
    /** Lamports the round account gained: what the deploy staked (the program's transfer, whoever paid it). */
    readonly staked: number;
    /** false: the node gave no balances for the transaction. */
    readonly balances?: boolean;
    /** The DeployEvent the program logged, in eras that log one. */
    readonly event?: { readonly amount: number; readonly mask: number; readonly totalSquares: number; readonly strategy: number | null };
  }

  interface Reset {
    readonly length: ResetEventLength;
    readonly slotHash: Uint8Array;
    readonly totalDeployed: number;
    readonly totalVaulted: number;
    readonly totalWinnings: number;
    readonly numWinners: number;
    readonly deployedWinningSquare?: number;
  }

  /** A 568-byte round's transactions, deploys in the v3 account order of their era. */
  function transactions(calls: readonly Call[], reset: Reset): TransactionJson[] {
    const txs: TransactionJson[] = [tx(990, [{ program: PROGRAM, accounts: [address('crank'), BOARD, ROUND], data: new Uint8Array([9]) }], [{ index: 0, ixs: [{ program: SYSTEM_PROGRAM, accounts: [address('crank'), ROUND], data: createAccountData(1, 568, bs58.decode(PROGRAM)) }] }])];
    calls.forEach((c, i) => {
      const authority = address(c.miner);
      const signer = address(c.signer ?? c.miner);
      const accounts =
        c.event === undefined
          ? [signer, authority, AUTOMATION, BOARD, address('miner-pda'), ROUND, SYSTEM_PROGRAM]
          : [signer, authority, AUTOMATION, BOARD, address('config'), address('miner-pda'), ROUND, SYSTEM_PROGRAM, PROGRAM];
      const event = c.event === undefined ? [] : [log(encodeDeployEvent({ authority: key(c.miner), roundId: ROUND_ID, signer: key(c.signer ?? c.miner), ts: 0, ...c.event }))];
      const t = tx(1000 + i, [{ program: PROGRAM, accounts, data: encodeDeployArgs({ amount: c.amount, squares: c.squares }) }], [{ index: 0, ixs: event }]);
      const keys = t.transaction.message.accountKeys as string[];
      const pre = keys.map(() => 50_000_000);
      const post = keys.map((k) => (k === AUTOMATION ? 50_000_000 - (c.automationPaid ?? 0) : k === ROUND ? 50_000_000 + c.staked : 50_000_000));
      txs.push(c.balances === false ? t : { ...t, meta: { ...t.meta!, preBalances: pre, postBalances: post } });
    });
    const winner = winningSquare(reset.slotHash);
    const event = encodeResetEvent({
      length: reset.length,
      roundId: ROUND_ID,
      startSlot: 1000,
      endSlot: 1150,
      winningSquare: winner,
      topMiner: new Uint8Array(32),
      minersField: reset.numWinners,
      motherlode: 0,
      totalDeployed: reset.totalDeployed,
      totalVaulted: reset.totalVaulted,
      totalWinnings: reset.totalWinnings,
      totalMinted: winner === null ? 0 : 120_000_000_000,
      ts: 0,
      rng: winner === null ? 0n : 25n,
      deployedWinningSquare: reset.deployedWinningSquare ?? 0,
    });
    txs.push(
      tx(
        1185,
        [{ program: PROGRAM, accounts: [address('crank'), BOARD, ROUND, NEXT_ROUND], data: new Uint8Array([9]) }],
        [{ index: 0, ixs: [{ program: SYSTEM_PROGRAM, accounts: [address('crank'), NEXT_ROUND], data: createAccountData(1, 568, bs58.decode(PROGRAM)) }, log(event)] }],
        [`${VAR_VALUE_LOG_PREFIX}${bs58.encode(reset.slotHash)}`],
      ),
    );
    return txs;
  }

  const stored = (txs: readonly TransactionJson[]) => {
    const r = rebuild(txs);
    if (!r.ok) throw new Error(`refused: ${r.reason} ${r.detail}`);
    return toSettledRound(r.account, new Date(0), { payoutRule: 'parimutuel', productionCost: null, source: 'transactions', unknown: r.unknown });
  };
  const unknownBut = (square: number, value: number): (number | null)[] => Array.from({ length: 25 }, (_, s) => (s === square ? value : null));

  // What the program did (deploy.rs at 12274aa): miner-a deployed 1,000 on squares 0 and 1
  // by hand; miner-b's automation deployed 5,001 on squares 0 and 2, which the chain does
  // not show (its executor's instruction says 1 lamport on no square). So deployed is
  // [6001, 1000, 5001, 0, ...], count [2, 1, 1, 0, ...], total 12,002, and with square 0
  // winning, reset.rs: L = 6,001; L/100 = 60; A = 5,941; vault 594; winnings 5,347;
  // num_winners = count[0] = 2.
  const manualA: Call = { miner: 'miner-a', amount: 1000, squares: 0b011, staked: 2000 };
  const automatedB: Call = { miner: 'miner-b', signer: 'executor', amount: 1, squares: 0, automationPaid: 10_002 + 500, staked: 10_002 };
  const reset: Reset = { length: 128, slotHash: SQUARE_0_WINS, totalDeployed: 12_002, totalVaulted: 594, totalWinnings: 5_347, numWinners: 2 };

  it('keeps what the ResetEvent proves, and nulls the rest, when an executor signed for the miner (before DeployEvents)', () => {
    const round = stored(transactions([manualA, automatedB], reset));
    // The round account's gain in miner-b's transaction shows it took squares: two miners.
    expect(round).toMatchObject({ source: 'transactions_partial', winningSquare: 0, totalDeployed: 12_002, totalVaulted: 594, totalWinnings: 5_347, totalMiners: 2 });
    // A = 5,941 = 99 x 60 + 1: L is 5,941 + 60 = 6,001 alone, so the winning square held 12,002 - 6,001.
    expect(round.deployed).toEqual(unknownBut(0, 6_001));
    expect(round.count).toEqual(unknownBut(0, 2));
    // Each deploy as it ran: miner-b's signed by its executor, its squares and amount not shown.
    const rebuilt = rebuild(transactions([manualA, automatedB], reset));
    expect(rebuilt.ok && rebuilt.applied.map(({ signature: _, ...d }) => d)).toEqual([
      { authority: address('miner-a'), signer: address('miner-a'), strategy: null, slot: 1000, slotsLeft: 150, squares: 0b011, amount: 1000 },
      { authority: address('miner-b'), signer: address('executor'), strategy: 'automated', slot: 1001, slotsLeft: 149, squares: null, amount: null },
    ]);
  });

  it('tells an automation its own authority executes by the lamports it paid', () => {
    const selfExecuted: Call = { ...automatedB, signer: 'miner-b' };
    expect(stored(transactions([manualA, selfExecuted], reset)).source).toBe('transactions_partial');
    // Signed by its authority and nothing paid by the automation: a manual deploy, taken as the instruction says.
    const manualB: Call = { miner: 'miner-b', amount: 5001, squares: 0b101, staked: 10_002 };
    expect(stored(transactions([manualA, manualB], reset))).toMatchObject({ source: 'transactions', deployed: [6_001, 1_000, 5_001, ...new Array<number>(22).fill(0)], totalMiners: 2 });
  });

  it('leaves the winning square unknown when two stakes give the reset\'s totals', () => {
    // miner-b's automation put 5,000 on squares 0 and 2: total 12,000, L = 6,000, A = 5,940 =
    // 99 x 60, vault 594, winnings 5,346. L = 5,999 gives 5,999 - 59 = 5,940 as well.
    const round = stored(transactions([manualA, { ...automatedB, staked: 10_000 }], { ...reset, totalDeployed: 12_000, totalVaulted: 594, totalWinnings: 5_346 }));
    expect(round.deployed).toEqual(new Array(25).fill(null));
    expect(round.count).toEqual(unknownBut(0, 2));
  });

  it('knows the winning square was empty when the reset vaulted all but the admin fee', () => {
    // miner-a: 1,000 on square 1; miner-b's automation 3,000 on square 2. Total 4,000, nobody
    // on square 0: vaulted 4,000 - 40, nothing won, num_winners 0.
    const round = stored(transactions([{ ...manualA, squares: 0b010, staked: 1000 }, { ...automatedB, staked: 3000 }], { ...reset, totalDeployed: 4_000, totalVaulted: 3_960, totalWinnings: 0, numWinners: 0 }));
    expect(round.deployed).toEqual(unknownBut(0, 0));
    expect(round.count).toEqual(unknownBut(0, 0));
  });

  it('counts the miners when the events show who took a square (DeployEvent with the mask asked for)', () => {
    const events: Call[] = [
      { ...manualA, event: { amount: 1000, mask: 0b011, totalSquares: 2, strategy: null } },
      { ...automatedB, event: { amount: 5001, mask: 0, totalSquares: 2, strategy: 0 } },
    ];
    const round = stored(transactions(events, reset));
    expect(round).toMatchObject({ source: 'transactions_partial', totalMiners: 2, deployed: unknownBut(0, 6_001), count: unknownBut(0, 2) });
    // What the automated events staked must add up with the rest to the reset's total.
    const overstated: Call[] = [events[0]!, { ...automatedB, event: { amount: 5001, mask: 0, totalSquares: 3, strategy: 0 } }];
    expect(rebuild(transactions(overstated, reset))).toMatchObject({ ok: false, reason: 'mismatch', detail: expect.stringContaining('automated') });
  });

  it('does not guess which squares a miner held when its own automation deployed first', () => {
    // miner-a's automation took squares 0 and 2 at 5,001; then miner-a asked by hand for 0 and
    // 1 at 1,000 and got 1 only (it held 0). deployed [5001, 1000, 5001], total 11,002,
    // L = 6,001: vault 594, winnings 5,347, num_winners 1.
    const calls: Call[] = [
      { miner: 'miner-a', signer: 'executor', amount: 1, squares: 0, automationPaid: 10_502, staked: 10_002, event: { amount: 5001, mask: 0, totalSquares: 2, strategy: 1 } },
      { ...manualA, staked: 1000, event: { amount: 1000, mask: 0b011, totalSquares: 1, strategy: null } },
    ];
    const round = stored(transactions(calls, { ...reset, totalDeployed: 11_002, numWinners: 1 }));
    expect(round).toMatchObject({ source: 'transactions_partial', totalMiners: 1, deployed: unknownBut(0, 5_001), count: unknownBut(0, 1) });
    // The automation's event tells its strategy and amount, not its squares; the manual deploy after it keeps its amount, its squares unknown.
    const rebuilt = rebuild(transactions(calls, { ...reset, totalDeployed: 11_002, numWinners: 1 }));
    expect(rebuilt.ok && rebuilt.applied.map(({ signature: _, ...d }) => d)).toEqual([
      { authority: address('miner-a'), signer: address('executor'), strategy: 1, slot: 1000, slotsLeft: 150, squares: null, amount: 5001 },
      { authority: address('miner-a'), signer: address('miner-a'), strategy: null, slot: 1001, slotsLeft: 149, squares: null, amount: 1000 },
    ]);
  });

  it('reads an automated deploy\'s squares from its event once the program logged the squares taken', () => {
    const events: Call[] = [
      { ...manualA, event: { amount: 1000, mask: 0b011, totalSquares: 2, strategy: null } },
      { ...automatedB, event: { amount: 5001, mask: 0b101, totalSquares: 2, strategy: 0 } },
    ];
    const round = stored(transactions(events, { ...reset, length: 144, deployedWinningSquare: 6_001 }));
    expect(round).toMatchObject({ source: 'transactions', totalMiners: 2, deployed: [6_001, 1_000, 5_001, ...new Array<number>(22).fill(0)], count: [2, 1, 1, ...new Array<number>(22).fill(0)] });
    const rebuilt = rebuild(transactions(events, { ...reset, length: 144, deployedWinningSquare: 6_001 }));
    expect(rebuilt.ok && rebuilt.applied.map(({ signature: _, ...d }) => d)).toEqual([
      { authority: address('miner-a'), signer: address('miner-a'), strategy: null, slot: 1000, slotsLeft: 150, squares: 0b011, amount: 1000 },
      { authority: address('miner-b'), signer: address('executor'), strategy: 0, slot: 1001, slotsLeft: 149, squares: 0b101, amount: 5001 },
    ]);
  });

  it('refuses, to be tried again, a voided round whose automated deploys do not show what they staked', () => {
    const voided: Reset = { ...reset, slotHash: VOIDED, totalDeployed: 0, totalVaulted: 0, totalWinnings: 0, numWinners: 0 };
    expect(rebuild(transactions([manualA, { ...automatedB, balances: false }], voided))).toMatchObject({ ok: false, reason: 'unprovable' });
    // The round account's gains show what each staked: 2,000 + 10,002.
    expect(stored(transactions([manualA, automatedB], voided))).toMatchObject({ source: 'transactions_partial', winningSquare: null, totalDeployed: 12_002, deployed: new Array(25).fill(null), totalMiners: 2 });
    // With events, what each deploy staked is known: 2,000 + 10,002.
    const events: Call[] = [
      { ...manualA, event: { amount: 1000, mask: 0b011, totalSquares: 2, strategy: null } },
      { ...automatedB, event: { amount: 5001, mask: 0, totalSquares: 2, strategy: 0 } },
    ];
    expect(stored(transactions(events, voided))).toMatchObject({ source: 'transactions_partial', winningSquare: null, totalDeployed: 12_002, deployed: new Array(25).fill(null), totalMiners: 2 });
  });

  it('takes an automated deploy that moved nothing into the round as one that took no square', () => {
    // miner-b's automation took nothing (no lamport reached the round): the round is miner-a's alone, fully known.
    // deployed [1000, 1000], total 2,000; square 0 wins: L = 1,000, A = 990, vault 99, winnings 891.
    const round = stored(transactions([manualA, { ...automatedB, staked: 0, automationPaid: 500 }], { ...reset, totalDeployed: 2_000, totalVaulted: 99, totalWinnings: 891, numWinners: 1 }));
    expect(round).toMatchObject({ source: 'transactions', totalMiners: 1, deployed: [1_000, 1_000, ...new Array<number>(23).fill(0)] });
  });

  it('refuses deploys shown that do not fit inside what the reset proves', () => {
    // The reset says nobody was on square 0, but miner-a's manual deploy put 1,000 there.
    expect(rebuild(transactions([manualA, automatedB], { ...reset, totalDeployed: 4_000, totalVaulted: 3_960, totalWinnings: 0, numWinners: 0 }))).toMatchObject({ ok: false, reason: 'mismatch' });
  });
});
