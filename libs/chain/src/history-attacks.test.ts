/**
 * Transactions anyone can land, against the rounds they name: each built as a node's
 * `getTransaction` (`jsonParsed`) returns it, in the shape of the real mainnet
 * transactions of fixtures/mainnet/transactions-2025-11 (checked below), and each round's
 * expected figures worked out by hand from the deploys it was given.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import { encodeDeployArgs, encodeDeployEvent, encodeResetEvent, logInstructionData, ORE_IX, VAR_VALUE_LOG_PREFIX } from './events';
import { OrePdas } from './pda';
import { rebuildRound } from './rebuild-round';
import { winningSquare } from './rng';
import { viewOf } from './bytes';
import { readOreTransaction, SYSTEM_PROGRAM, type TransactionJson } from './transactions';

const PROGRAM = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';
const BOARD = 'BrcSxdp1nXFzou1YyDnQJcPNBNHgoypZmTsyKBSLLXzi';
const ENTROPY = '3jSkUuYBoJzQPMEzTvkDFXCZUBksPamrVhrnHR9igu2X';
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const IDS = { programId: PROGRAM, board: BOARD };
const PDAS = new OrePdas(PROGRAM);
const FIXTURE = join(__dirname, '../../../fixtures/mainnet/transactions-2025-11/transactions.json');

interface FixtureEntry {
  readonly parsedData: TransactionJson & { readonly transaction: { readonly signatures: readonly string[] } };
}
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { deploys: FixtureEntry[]; reset: FixtureEntry[] };
const realReset = fixture.reset[0]!.parsedData;
const realDeploy = fixture.deploys[0]!.parsedData;

const key = (label: string): Uint8Array => new Uint8Array(createHash('sha256').update(label).digest());
const address = (label: string): string => bs58.encode(key(label));
const roundAddress = (id: number): string => PDAS.round(id).toBase58();

/** An instruction as it goes into a transaction: which program, which accounts, what data (or jsonParsed's `parsed`). */
interface Ix {
  readonly program: string;
  readonly accounts: readonly string[];
  readonly data?: Uint8Array;
  readonly parsed?: { readonly type: string; readonly info: Record<string, unknown> };
}

let signatures = 0;

/**
 * A `getTransaction` (`jsonParsed`) result as a node returns it (compare realReset): account
 * keys as objects, instructions with `programId` and addresses, the system program's
 * instructions `parsed`, the runtime's invoke/success lines around each program's logs.
 */
function parsedTx(slot: number, top: readonly Ix[], inner: readonly { index: number; ixs: readonly Ix[] }[], logs: readonly string[]): TransactionJson {
  const keys: string[] = [];
  const add = (k: string): void => void (keys.includes(k) ? undefined : keys.push(k));
  for (const ix of [...top, ...inner.flatMap((g) => g.ixs)]) {
    for (const a of ix.accounts) add(a);
    add(ix.program);
  }
  const json = (ix: Ix, stackHeight: number) =>
    ix.parsed === undefined
      ? { accounts: [...ix.accounts], data: bs58.encode(ix.data ?? new Uint8Array()), programId: ix.program, stackHeight }
      : { parsed: ix.parsed, program: 'system', programId: ix.program, stackHeight };
  return {
    blockTime: 1_765_000_000 + Math.floor(slot * 0.4),
    meta: {
      computeUnitsConsumed: 60_000,
      costUnits: 70_000,
      err: null,
      fee: 5000,
      innerInstructions: inner.map((g) => ({ index: g.index, instructions: g.ixs.map((ix) => json(ix, 2)) })),
      logMessages: [...logs],
      postBalances: keys.map(() => 1),
      postTokenBalances: [],
      preBalances: keys.map(() => 1),
      preTokenBalances: [],
      rewards: [],
      status: { Ok: null },
    },
    slot,
    transaction: {
      message: {
        accountKeys: keys.map((pubkey, i) => ({ pubkey, signer: i === 0, source: 'transaction', writable: i === 0 })),
        instructions: top.map((ix) => json(ix, 1)),
        recentBlockhash: address(`blockhash-${slot}`),
      },
      signatures: [bs58.encode(key(`sig-${signatures++}`))],
    },
    version: 'legacy',
  } as TransactionJson;
}

/** The key paths of a JSON value (arrays by their first element): what a shape comparison compares. */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [`${at}[]`] : shape(value[0], `${at}[]`);
  if (value === null || typeof value !== 'object') return [`${at}:${value === null ? 'null' : typeof value}`];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => shape(v, `${at}.${k}`));
}

const budget = (): Ix => ({ program: COMPUTE_BUDGET, accounts: [], data: Uint8Array.of(2, 0, 0, 0, 0) });
const budgetLogs = [`Program ${COMPUTE_BUDGET} invoke [1]`, `Program ${COMPUTE_BUDGET} success`];
const log = (event: Uint8Array): Ix => ({ program: PROGRAM, accounts: [BOARD], data: logInstructionData(event) });
const logLines = [`Program ${PROGRAM} invoke [2]`, `Program ${PROGRAM} consumed 503 of 150000 compute units`, `Program ${PROGRAM} success`];
const transfer = (from: string, to: string, lamports: number): Ix => ({ program: SYSTEM_PROGRAM, accounts: [from, to], parsed: { type: 'transfer', info: { destination: to, lamports, source: from } } });

/** A slot hash whose four u64 words XOR to `rng` (the first word; the rest zero): winning square rng % 25. */
function slotHashFor(rng: number): Uint8Array {
  const bytes = new Uint8Array(32);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(rng), true);
  return bytes;
}

interface PlannedDeploy {
  readonly miner: string;
  readonly amount: number;
  readonly squares: number;
}

/**
 * A deploy as the program ran it. `era: 'events'` (since 2025-12-09): 9 accounts, round
 * 7th, a DeployEvent; `era: 'instructions'` (November 2025, as in the fixture): 9 accounts
 * with the entropy pair last, round 6th, no event. `extra`: further accounts the caller
 * listed after the program's own.
 */
function deployTx(slot: number, roundId: number, d: PlannedDeploy, era: 'events' | 'instructions', extra: readonly string[] = []): TransactionJson {
  const miner = address(`miner-pda-${d.miner}`);
  const round = roundAddress(roundId);
  const accounts =
    era === 'events'
      ? [d.miner, d.miner, address(`automation-${d.miner}`), BOARD, address('config'), miner, round, SYSTEM_PROGRAM, PROGRAM, ...extra]
      : [d.miner, d.miner, address(`automation-${d.miner}`), BOARD, miner, round, SYSTEM_PROGRAM, address('var'), ENTROPY, ...extra];
  const squares = popcount(d.squares);
  const inner: Ix[] = [transfer(d.miner, round, d.amount * squares)];
  const logs = [...budgetLogs, `Program ${PROGRAM} invoke [1]`, `Program ${SYSTEM_PROGRAM} invoke [2]`, `Program ${SYSTEM_PROGRAM} success`];
  if (era === 'events') {
    inner.push(log(encodeDeployEvent({ authority: bs58.decode(d.miner), amount: d.amount, mask: d.squares, roundId, signer: bs58.decode(d.miner), strategy: null, totalSquares: squares, ts: slot })));
    logs.push(...logLines);
  }
  logs.push(`Program log: Round #${roundId}: deploying ${d.amount / 1e9} SOL to ${squares} squares`, `Program ${PROGRAM} success`);
  return parsedTx(slot, [budget(), { program: PROGRAM, accounts, data: encodeDeployArgs({ amount: d.amount, squares: d.squares }) }], [{ index: 1, ixs: inner }], logs);
}

interface PlannedReset {
  readonly roundId: number;
  readonly slot: number;
  /** The slot hash is slotHashFor(rng): winning square rng % 25. */
  readonly rng: number;
  readonly totalDeployed: number;
  readonly deployedWinningSquare: number;
  readonly miners: number;
  /** Logs of a program the transaction calls before ORE's reset (the entropy program's, in the fixture). */
  readonly before?: readonly string[];
}

/** A reset as the program ran it (compare realReset): it creates the next round (952 bytes) and logs the ResetEvent and `var value:`. */
function resetTx(r: PlannedReset): TransactionJson {
  const next = roundAddress(r.roundId + 1);
  const crank = address('crank');
  const event = encodeResetEvent({
    length: 144,
    roundId: r.roundId,
    startSlot: r.slot - 150,
    endSlot: r.slot - 1,
    winningSquare: r.rng % 25,
    topMiner: new Uint8Array(32),
    minersField: r.miners,
    motherlode: 0,
    totalDeployed: r.totalDeployed,
    // Copied into the round as they are (the rebuild does not settle): any figures do.
    totalVaulted: 111,
    totalWinnings: 222,
    totalMinted: 0,
    ts: r.slot,
    rng: BigInt(r.rng),
    deployedWinningSquare: r.deployedWinningSquare,
  });
  const before = r.before ?? [];
  const logs = [
    ...budgetLogs,
    ...before,
    `Program ${PROGRAM} invoke [1]`,
    'Program log: Ore accounts: 14',
    `Program ${SYSTEM_PROGRAM} invoke [2]`,
    `Program ${SYSTEM_PROGRAM} success`,
    `Program log: var seed: ${address('seed')}`,
    `${VAR_VALUE_LOG_PREFIX}${bs58.encode(slotHashFor(r.rng))}`,
    ...logLines,
    `Program ${PROGRAM} success`,
  ];
  const top: Ix[] = [budget()];
  if (before.length > 0) top.push({ program: ENTROPY, accounts: [crank], data: Uint8Array.of(6) });
  top.push({ program: PROGRAM, accounts: [crank, BOARD, roundAddress(r.roundId), next, SYSTEM_PROGRAM, ENTROPY], data: Uint8Array.of(ORE_IX.reset) });
  const createNext: Ix = { program: SYSTEM_PROGRAM, accounts: [crank, next], parsed: { type: 'createAccount', info: { lamports: 7_510_000, newAccount: next, owner: PROGRAM, source: crank, space: 952 } } };
  return parsedTx(r.slot, top, [{ index: top.length - 1, ixs: [createNext, log(event)] }], logs);
}

/** `bytes` with the u64 at `offset` set to u64::MAX (the encoders take numbers). */
function withU64Max(bytes: Uint8Array, offset: number): Uint8Array {
  viewOf(bytes).setBigUint64(offset, 0xffff_ffff_ffff_ffffn, true);
  return bytes;
}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

const rebuild = (roundId: number, txs: readonly TransactionJson[]) =>
  rebuildRound({ roundId, roundAddress: roundAddress(roundId), transactions: txs.map((t) => readOreTransaction(t, IDS)), fallbackLayout: null });

/** Rounds named by the transactions that list their address, as getSignaturesForAddress returns them. */
function naming(roundId: number, txs: readonly TransactionJson[]): TransactionJson[] {
  const address = roundAddress(roundId);
  return txs.filter((t) => {
    const keys = t.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey));
    return keys.includes(address);
  });
}

describe('the transactions built here', () => {
  it('have the shape of the real mainnet transactions', () => {
    const reset = resetTx({ roundId: 1, slot: 300, rng: 7, totalDeployed: 0, deployedWinningSquare: 0, miners: 0 });
    const deploy = deployTx(200, 1, { miner: address('m'), amount: 10_000, squares: 0b1011 }, 'instructions');
    // What differs by instruction and by account (a reset mints ORE; these move no tokens).
    const ignored = /\.(parsed\.info\.|meta\.(pre|post)TokenBalances)/;
    const paths = (tx: unknown) => [...new Set(shape(tx))].filter((p) => !ignored.test(p)).sort();
    expect(paths(reset)).toEqual(expect.arrayContaining(paths(realReset)));
    expect(paths(realReset)).toEqual(expect.arrayContaining(paths(reset)));
    expect(paths(deploy)).toEqual(expect.arrayContaining(paths(realDeploy)));
  });

  it('read the real ones as mainnet ran them: the deploy\'s round where deploy.rs reads it, the reset\'s randomness and event', () => {
    const deploy = readOreTransaction(realDeploy, IDS);
    // "Round #48888: deploying 0.00001 SOL to 11 squares", logged by the program.
    expect(deploy.deploys).toHaveLength(1);
    expect(deploy.deploys[0]!.rounds[0]).toBe(roundAddress(48888));
    expect(deploy.deploys[0]!.args.amount).toBe(10_000);
    expect(popcount(deploy.deploys[0]!.args.squares)).toBe(11);
    expect(deploy.skipped).toEqual([]);
    // What the wallet paid the network: its first key, the meta's fee (one signature's 5,000: no priority fee).
    expect(deploy).toMatchObject({ feePayer: '6Er6L78mTiS1f8s7m7yTrZjLusYpbRxiB3aMbxeLktok', fee: 5000, signatures: 1 });
    // Failed, it changed nothing, but the fee was still paid.
    const failed = readOreTransaction({ ...realDeploy, meta: { ...realDeploy.meta, err: { InstructionError: [2, 'Custom'] } } }, IDS);
    expect(failed).toMatchObject({ failed: true, deploys: [], feePayer: '6Er6L78mTiS1f8s7m7yTrZjLusYpbRxiB3aMbxeLktok', fee: 5000, signatures: 1 });

    const reset = readOreTransaction(realReset, IDS);
    expect(reset.varValue).toEqual(bs58.decode('3uyiscy6UdNEdXfxwC5MBTVuKE5NAWDYb1Hog9FHSbpz'));
    expect(reset.events).toEqual([expect.objectContaining({ kind: 'reset', roundId: 52697, length: 128 })]);
    const event = reset.events[0]!;
    expect(event.kind === 'reset' && event.winningSquare).toBe(winningSquare(reset.varValue!));
    // Funded rent-exempt: (560 + 128) bytes x 6,960 lamports (3,480 a byte-year, two years) = 4,788,480.
    expect(reset.created).toEqual([{ address: 'EXFeUJgAhPjoGL54oYix2USbDM4y7yaQz1AsbotDL6wS', space: 560, owner: PROGRAM, lamports: 4_788_480 }]);
  });
});

describe('a transaction listing 200 round addresses, with a u64::MAX deploy of an empty mask', () => {
  // Rounds 1000..1199, 200 slots apart. Round 1000 + i: its slot hash's rng is i + 25
  // (winning square i % 25); miner A puts 1,000,000 lamports on squares 0, 1 and 2, miner
  // B 2,500,000 on the winning square; so 5,500,000 in all,
  // 2 miners, and the winning square holds 2,500,000 (3,500,000 when it is 0, 1 or 2).
  const A = address('miner-a');
  const B = address('miner-b');
  const FIRST = 1000;
  const ROUNDS = 200;
  const start = (id: number) => 10_000 + (id - FIRST) * 200;
  const expected = (id: number) => {
    const w = (id - FIRST) % 25;
    const deployed = new Array<number>(25).fill(0);
    const count = new Array<number>(25).fill(0);
    for (const s of [0, 1, 2]) [deployed[s], count[s]] = [1_000_000, 1];
    deployed[w]! += 2_500_000;
    count[w]! += 1;
    return { w, deployed, count };
  };
  const txs: TransactionJson[] = [];
  for (let id = FIRST; id < FIRST + ROUNDS; id++) {
    const { w, deployed } = expected(id);
    txs.push(deployTx(start(id) + 1, id, { miner: A, amount: 1_000_000, squares: 0b111 }, 'events'));
    txs.push(deployTx(start(id) + 2, id, { miner: B, amount: 2_500_000, squares: 1 << w }, 'events'));
    txs.push(resetTx({ roundId: id, slot: start(id) + 151, rng: id - FIRST + 25, totalDeployed: 5_500_000, deployedWinningSquare: deployed[w]!, miners: 2 }));
  }
  // In round 1100: the real deploy, its amount u64::MAX and its mask empty (the program
  // transfers nothing and logs a genuine DeployEvent), listing all 200 rounds after its own.
  const CURRENT = 1100;
  const listed = Array.from({ length: ROUNDS }, (_, i) => roundAddress(FIRST + i)).filter((a) => a !== roundAddress(CURRENT));
  const attacker = address('attacker');
  const maxEvent = withU64Max(encodeDeployEvent({ authority: bs58.decode(attacker), amount: 0, mask: 0, roundId: CURRENT, signer: bs58.decode(attacker), strategy: null, totalSquares: 0, ts: 0 }), 40);
  const maxArgs = withU64Max(encodeDeployArgs({ amount: 0, squares: 0 }), 1);
  const attack = parsedTx(
    start(CURRENT) + 50,
    [budget(), { program: PROGRAM, accounts: [attacker, attacker, address('automation-x'), BOARD, address('config'), address('miner-pda-x'), roundAddress(CURRENT), SYSTEM_PROGRAM, PROGRAM, ...listed], data: maxArgs }],
    [{ index: 1, ixs: [log(maxEvent)] }],
    [...budgetLogs, `Program ${PROGRAM} invoke [1]`, ...logLines, `Program ${PROGRAM} success`],
  );
  const chain = [...txs, attack].sort((a, b) => a.slot - b.slot);

  it('is listed for every one of the 200 rounds, and reads with its deploy and event skipped', () => {
    for (let id = FIRST; id < FIRST + ROUNDS; id++) expect(naming(id, chain)).toContain(attack);
    const read = readOreTransaction(attack, IDS);
    expect(read.events).toEqual([]);
    expect(read.deploys).toEqual([]);
    expect(read.skipped.map((s) => s.reason).sort()).toEqual(['bad_deploy_args', 'bad_event']);
  });

  it('leaves every round rebuilding to the figures its deploys give', () => {
    for (let id = FIRST; id < FIRST + ROUNDS; id++) {
      const { w, deployed, count } = expected(id);
      const rebuilt = rebuild(id, naming(id, chain));
      expect(rebuilt).toMatchObject({ ok: true, from: 'events', deploys: 2 });
      if (!rebuilt.ok) continue;
      expect(rebuilt.account).toMatchObject({ id, layout: 952, deployed, count, totalDeployed: 5_500_000, totalMiners: 2, totalVaulted: 111, totalWinnings: 222 });
      expect(rebuilt.account.slotHash).toEqual(slotHashFor(id - FIRST + 25));
      expect(winningSquare(rebuilt.account.slotHash)).toBe(w);
    }
    // The round it was a deploy of counts what it skipped; rounds it came after never read it.
    expect(rebuild(CURRENT, naming(CURRENT, chain))).toMatchObject({ ok: true, skipped: 2, skippedReasons: { bad_deploy_args: 1, bad_event: 1 } });
    expect(rebuild(FIRST, naming(FIRST, chain))).toMatchObject({ ok: true, skipped: 0 });
  });
});

describe('an old round named as a trailing account of another round\'s Deploy', () => {
  // Round 700, before the DeployEvent: miner A deploys 10,000 lamports on squares 0..3,
  // miner B 20,000 on square 3 and 7 (40,000 + 40,000 = 80,000 in all; square 3 holds
  // 30,000 with 2 miners). Its slot hash gives square 3 (rng 28: 28 % 25).
  const A = address('old-a');
  const B = address('old-b');
  const deploys = [deployTx(100, 700, { miner: A, amount: 10_000, squares: 0b1111 }, 'instructions'), deployTx(101, 700, { miner: B, amount: 20_000, squares: (1 << 3) | (1 << 7) }, 'instructions')];
  const reset = resetTx({ roundId: 700, slot: 250, rng: 28, totalDeployed: 80_000, deployedWinningSquare: 30_000, miners: 2 });
  // Round 701's deploys, each listing round 700 after the program's own accounts: one in
  // the reset's own slot (after it), one later.
  const intruder = address('intruder');
  const sameSlot = deployTx(250, 701, { miner: intruder, amount: 5_000_000, squares: 1 << 3 }, 'instructions', [roundAddress(700)]);
  const later = deployTx(260, 701, { miner: intruder, amount: 7_000_000, squares: 0b1 }, 'instructions', [roundAddress(700)]);

  it('rebuilds the round from its own deploys', () => {
    const txs = [...deploys, reset, sameSlot, later];
    expect(naming(700, txs)).toEqual(txs);
    const rebuilt = rebuild(700, txs);
    expect(rebuilt).toMatchObject({ ok: true, from: 'instructions', deploys: 2 });
    if (!rebuilt.ok) return;
    const deployed = [10_000, 10_000, 10_000, 30_000, 0, 0, 0, 20_000, ...new Array<number>(17).fill(0)];
    const count = [1, 1, 1, 2, 0, 0, 0, 1, ...new Array<number>(17).fill(0)];
    expect(rebuilt.account).toMatchObject({ id: 700, deployed, count, totalDeployed: 80_000, totalMiners: 2 });
  });
});

describe('a reset whose transaction first runs another program that logs a `var value:` line', () => {
  const forged = slotHashFor(9);
  const before = [`Program ${ENTROPY} invoke [1]`, `${VAR_VALUE_LOG_PREFIX}${bs58.encode(forged)}`, `Program ${ENTROPY} success`];

  it('takes the slot hash the ORE program logged (the real reset of round 52697)', () => {
    const real = realReset as { meta: { logMessages: string[] } } & TransactionJson;
    const logs = real.meta.logMessages;
    // Before the ORE invocation, as the fixture's entropy program logs its lines.
    const at = logs.indexOf(`Program ${PROGRAM} invoke [1]`);
    const tampered = { ...real, meta: { ...real.meta, logMessages: [...logs.slice(0, at), ...before, ...logs.slice(at)] } } as TransactionJson;
    const read = readOreTransaction(tampered, IDS);
    expect(read.varValue).toEqual(bs58.decode('3uyiscy6UdNEdXfxwC5MBTVuKE5NAWDYb1Hog9FHSbpz'));
  });

  it('rebuilds the round with it', () => {
    // Round 800: one miner, 50,000 lamports on square 12; the slot hash gives square 12 (rng 37), the forged one square 9.
    const m = address('m800');
    const txs = [deployTx(100, 800, { miner: m, amount: 50_000, squares: 1 << 12 }, 'events'), resetTx({ roundId: 800, slot: 250, rng: 37, totalDeployed: 50_000, deployedWinningSquare: 50_000, miners: 1, before })];
    const rebuilt = rebuild(800, txs);
    expect(rebuilt).toMatchObject({ ok: true });
    if (!rebuilt.ok) return;
    expect(rebuilt.account.slotHash).toEqual(slotHashFor(37));
    expect(winningSquare(rebuilt.account.slotHash)).toBe(12);
  });
});
