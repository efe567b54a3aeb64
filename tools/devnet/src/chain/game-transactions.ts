/**
 * The game's transactions as `getTransaction` (`json`) shows them on mainnet, built from
 * a derived round: each deploy, the reset, and the crank's close. Account lists follow
 * the program's (`api/src/sdk.rs`), events are inner `Log` instructions signed by the
 * board in the layout of the round's era, and the logs carry what the program logs
 * (reset's `var value:` line holds the slot hash written into the round).
 */
import { createHash } from 'node:crypto';
import { createAccountData, encodeBase58 } from '@gridlab/chain';
import { blockTimeOf } from '../game/chain-time';
import { type DeployEntry, type DerivedRound, deployAt } from '../game/derive-round';
import { INSTRUCTION, deployData, deployEvent, logData, resetEvent } from '../program/events';
import { topMinerSample } from '../program/round-rules';
import { layoutOf } from '../game/eras';
import type { RoundContext } from '../game/derive-round';
import { ADMIN_FEE_COLLECTOR, ENTROPY_PROGRAM, type GameKeys, SLOT_HASHES_SYSVAR, TOKEN_PROGRAM } from './game-keys';

const FEE = 5000;
/** The program of an attacker who sends resets (test hook). */
const HOSTILE_PROGRAM = encodeBase58(createHash('sha256').update('gridlab-devnet-hostile-program').digest());
const LAMPORTS_PER_SOL = 1_000_000_000;
/** A wallet balance shown before each deploy (the model does not track wallets). */
const WALLET_LAMPORTS = 50 * LAMPORTS_PER_SOL;
const CU_LIMIT = 200_000;
const SYSTEM_TRANSFER = 2;
/** Account sizes the balances show rent for: board, treasury, config, miner, entropy var. */
const SIZES = { board: 40, treasury: 48, config: 232, miner: 752, var: 240 } as const;
/** The executor's balance shown before each automated deploy (the model does not track it). */
const EXECUTOR_LAMPORTS = 500 * LAMPORTS_PER_SOL;
/**
 * The Automation account's size by era: 120 bytes in v3 (12274aa), 136 after the
 * 2026-06-25 migration (`total_sol_spent`, `total_ore_earned`, bd617d1), 160 with the
 * conditions of 946d713 (2026-07-28), which the devnet dates with the `returns` rule.
 */
const AUTOMATION_SIZES = { v3: 120, migrated: 136, conditions: 160 } as const;

export interface InstructionJson {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

/** A transaction in the `json` encoding (without `version`, which depends on the request). */
export interface TransactionJson {
  slot: number;
  blockTime: number;
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
      recentBlockhash: string;
      instructions: InstructionJson[];
    };
  };
  meta: {
    err: null;
    status: { Ok: null };
    fee: number;
    preBalances: number[];
    postBalances: number[];
    innerInstructions: { index: number; instructions: InstructionJson[] }[];
    logMessages: string[];
    preTokenBalances: never[];
    postTokenBalances: never[];
    rewards: never[];
    loadedAddresses: { writable: never[]; readonly: never[] };
    computeUnitsConsumed: number;
  };
}

/** The program's Deploy account order, as indexes into the deploy's account keys (signer and authority are key 0). */
const DEPLOY_ACCOUNTS = [0, 0, 1, 2, 3, 4, 5, 6, 8, 10, 7, 9];
const DEPLOY_HEADER = { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 };
/** An automated deploy's order: the executor signs (key 0), the authority is key 1. */
const AUTOMATED_DEPLOY_ACCOUNTS = [0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 8, 10];
const AUTOMATED_LOG_ACCOUNTS = [3];
const TRANSFER_ACCOUNTS = [0, 5];
const LOG_ACCOUNTS = [2];
/** Blockhashes of recent slots (a round's deploys share a few hundred slots). */
const BLOCKHASHES_KEPT = 512;

/** Builds the json of one game transaction, under the signature that names it (game-signatures.ts). */
export class GameTransactionBuilder {
  private readonly rent: { board: number; treasury: number; config: number; miner: number; var: number };
  private readonly blockhashes = new Map<number, string>();

  constructor(
    private readonly keys: GameKeys,
    private readonly ctx: RoundContext,
    /** Test hook: rounds whose reset an attacker sends, after an instruction of their own program that logs a false `var value:`. */
    private readonly hostileResets: ReadonlySet<number> = new Set(),
  ) {
    this.rent = {
      board: keys.rent(SIZES.board),
      treasury: keys.rent(SIZES.treasury),
      config: keys.rent(SIZES.config),
      miner: keys.rent(SIZES.miner),
      var: keys.rent(SIZES.var),
    };
  }

  deploy(round: DerivedRound, index: number, signature: string): TransactionJson {
    const d = deployAt(round.deploys, index);
    if (d.automated) return this.automatedDeploy(round, d, signature);
    const k = this.keys;
    const m = k.miner(d.miner);
    const program = k.program;
    const roundAddress = k.round(round.id);
    // Signer and authority are one wallet (a manual deploy): the key appears once.
    const accountKeys = [m.authority, m.automation, k.board, k.config, m.miner, roundAddress, k.treasury, k.entropyVar, k.system, ENTROPY_PROGRAM, program];
    const squares = popcount(d.deployed);
    const lamports = d.amount * squares;
    const inner: InstructionJson[] = [];
    const logs = [`Program ${program} invoke [1]`];
    if (lamports > 0) {
      inner.push({ programIdIndex: 8, accounts: TRANSFER_ACCOUNTS, data: encodeBase58(transferData(lamports)), stackHeight: 2 });
      logs.push(`Program ${k.system} invoke [2]`, `Program ${k.system} success`);
    }
    if (round.events.deployEvent !== 'none') {
      const event = deployEvent({
        authority: m.authorityBytes,
        amount: d.amount,
        // Until 2025-12-30 the event logged the squares asked for, held ones included.
        mask: round.events.deployEvent === 'requested' ? d.requested : d.deployed,
        roundId: round.id,
        signer: m.authorityBytes,
        strategy: null,
        totalSquares: squares,
        ts: blockTimeOf(d.slot),
      });
      inner.push({ programIdIndex: 10, accounts: LOG_ACCOUNTS, data: encodeBase58(logData(event)), stackHeight: 2 });
      logs.push(`Program ${program} invoke [2]`, `Program ${program} consumed 1207 of ${CU_LIMIT - 30_000} compute units`, `Program ${program} success`);
    }
    const units = 28_000 + 4_100 * squares;
    logs.push(
      `Program log: Round #${round.id}: deploying ${formatSol(d.amount)} SOL to ${squares} squares`,
      `Program ${program} consumed ${units} of ${CU_LIMIT} compute units`,
      `Program ${program} success`,
    );
    const roundBefore = k.rent(round.layout) + d.roundLamportsBefore;
    const others = [0, this.rent.board, this.rent.config, this.rent.miner, roundBefore, this.rent.treasury, this.rent.var, 1, 1, 1];
    return this.transaction(d.slot, signature, {
      accountKeys,
      header: DEPLOY_HEADER,
      // The program's order: signer, authority, automation, board, config, miner, round, treasury, system, ORE, var, entropy.
      instruction: { programIdIndex: 10, accounts: DEPLOY_ACCOUNTS, data: encodeBase58(deployData(d.amount, d.requested)) },
      inner,
      logs,
      preBalances: [WALLET_LAMPORTS, ...others],
      postBalances: [WALLET_LAMPORTS - FEE - lamports, ...others.map((b, i) => (i === 4 ? b + lamports : b))],
      units,
    });
  }

  /**
   * A deploy the executor signs for an automation (deploy.rs): the executor is the signer
   * and fee payer, the authority is account 1 and signs nothing. The program moves the SOL
   * itself, without a system transfer: the stakes from the automation account to the round,
   * the fee to the executor, and the rest to the authority when the balance can no longer
   * pay a square (the automation is closed). A deploy that closes it before deploying (since
   * 2026-06) logs no DeployEvent.
   */
  private automatedDeploy(round: DerivedRound, d: DeployEntry, signature: string): TransactionJson {
    const k = this.keys;
    const m = k.miner(d.miner);
    const program = k.program;
    const accountKeys = [k.executor, m.authority, m.automation, k.board, k.config, m.miner, k.round(round.id), k.treasury, k.entropyVar, k.system, ENTROPY_PROGRAM, program];
    const squares = popcount(d.deployed);
    const lamports = d.amount * squares;
    const inner: InstructionJson[] = [];
    const logs = [`Program ${program} invoke [1]`];
    if (round.events.deployEvent !== 'none' && !d.silent) {
      const event = deployEvent({
        authority: m.authorityBytes,
        amount: d.amount,
        // The executor's argument until 2025-12-30 (the program ignores it for these strategies), then the squares taken.
        mask: round.events.deployEvent === 'requested' ? d.requested : d.deployed,
        roundId: round.id,
        signer: k.executorBytes,
        strategy: d.strategy,
        totalSquares: squares,
        ts: blockTimeOf(d.slot),
      });
      inner.push({ programIdIndex: 11, accounts: AUTOMATED_LOG_ACCOUNTS, data: encodeBase58(logData(event)), stackHeight: 2 });
      logs.push(`Program ${program} invoke [2]`, `Program ${program} consumed 1207 of ${CU_LIMIT - 30_000} compute units`, `Program ${program} success`);
    }
    if (!d.silent) logs.push(`Program log: Round #${round.id}: deploying ${formatSol(d.amount)} SOL to ${squares} squares`);
    const units = 24_000 + 4_100 * squares;
    logs.push(`Program ${program} consumed ${units} of ${CU_LIMIT} compute units`, `Program ${program} success`);
    const automationBefore = k.rent(this.automationSize(round)) + d.automationBefore;
    const automationLeft = automationBefore - lamports - d.executorFee;
    const roundBefore = k.rent(round.layout) + d.roundLamportsBefore;
    const pre = [EXECUTOR_LAMPORTS, WALLET_LAMPORTS, automationBefore, this.rent.board, this.rent.config, this.rent.miner, roundBefore, this.rent.treasury, this.rent.var, 1, 1, 1];
    const post = [...pre];
    post[0] = EXECUTOR_LAMPORTS - FEE + d.executorFee;
    post[1] = WALLET_LAMPORTS + (d.closed ? automationLeft : 0);
    post[2] = d.closed ? 0 : automationLeft;
    post[6] = roundBefore + lamports;
    return this.transaction(d.slot, signature, {
      accountKeys,
      header: DEPLOY_HEADER,
      // The program's order: signer, authority, automation, board, config, miner, round, treasury, system, ORE, var, entropy.
      instruction: { programIdIndex: 11, accounts: AUTOMATED_DEPLOY_ACCOUNTS, data: encodeBase58(deployData(d.argAmount, d.requested)) },
      inner,
      logs,
      preBalances: pre,
      postBalances: post,
      units,
    });
  }

  private automationSize(round: DerivedRound): number {
    if (round.layout !== 952) return AUTOMATION_SIZES.v3;
    return round.rule === 'returns' ? AUTOMATION_SIZES.conditions : AUTOMATION_SIZES.migrated;
  }

  reset(round: DerivedRound, signature: string): TransactionJson {
    const k = this.keys;
    const program = k.program;
    const nextLayout = layoutOf(this.ctx.eras, round.id + 1);
    const nextRent = k.rent(nextLayout);
    const topMiner = k.miner(round.topMiner ?? -1).miner;
    const accountKeys = [
      k.crank, k.board, k.config, ADMIN_FEE_COLLECTOR, k.mint, k.round(round.id), k.round(round.id + 1), topMiner, k.treasury, k.treasuryTokens, k.entropyVar,
      k.oreMintAuthority, k.system, TOKEN_PROGRAM, program, SLOT_HASHES_SYSVAR, ENTROPY_PROGRAM, k.oreMintProgram,
    ];
    const event = resetEvent(round.reset, round.events.resetLength);
    const winner = round.winningSquare;
    // Anyone may reset, and put instructions of their own before it: an attacker's program logs a false `var value:` first.
    const hostile = this.hostileResets.has(round.id);
    const prelude = hostile ? [`Program ${HOSTILE_PROGRAM} invoke [1]`, `Program log: var value: ${encodeBase58(hashOf('false value', round.id))}`, `Program ${HOSTILE_PROGRAM} success`] : [];
    const logs = [
      ...prelude,
      `Program ${program} invoke [1]`,
      'Program log: Ore accounts: 14',
      'Program log: Other accounts: 4',
      'Program log: Entropy accounts: 2',
      'Program log: Mint accounts: 2',
      `Program ${k.system} invoke [2]`,
      `Program ${k.system} success`,
      `Program log: var slothash: ${encodeBase58(hashOf('slothash', round.slotHash))}`,
      `Program log: var seed: ${encodeBase58(hashOf('seed', round.slotHash))}`,
      // reset.rs: `sol_log(&format!("var value: {:?}", value))`, a keccak Hash printed in base58.
      `Program log: var value: ${encodeBase58(round.slotHash)}`,
    ];
    if (winner !== null) {
      logs.push(`Program log: Winning square: ${winner}`);
      const onWinner = round.deployed[winner]!;
      if (round.topMiner !== null && onWinner > 0) {
        logs.push(`Program log: Top miner sample: ${topMinerSample(round.reset.rng, onWinner)}`, 'Program log: Top miner verified');
      } else logs.push('Program log: Split round');
    }
    logs.push(
      `Program ${program} invoke [2]`,
      `Program ${program} consumed 1207 of 150000 compute units`,
      `Program ${program} success`,
      `Program ${program} consumed 61240 of ${CU_LIMIT} compute units`,
      `Program ${program} success`,
    );
    const last = round.deploys.length - 1;
    const stakes = last < 0 ? 0 : round.deploys.roundLamportsBefore[last]! + round.deploys.amount[last]! * popcount(round.deploys.deployed[last]!);
    const pre = [WALLET_LAMPORTS, this.rent.board, this.rent.config, 0, 0, k.rent(round.layout) + stakes, 0, this.rent.miner, this.rent.treasury, 0, this.rent.var, 0, 1, 1, 1, 1, 1, 1];
    if (hostile) {
      accountKeys.push(HOSTILE_PROGRAM);
      pre.push(1);
    }
    const post = pre.map((b, i) => (i === 0 ? b - FEE - nextRent : i === 6 ? nextRent : b));
    return this.transaction(round.resetSlot, signature, {
      accountKeys,
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: hostile ? 7 : 6 },
      ...(hostile ? { prelude: { programIdIndex: accountKeys.length - 1, accounts: [], data: encodeBase58(Buffer.from('var value')) } } : {}),
      // The program's 18 accounts: signer, board, config, fee collector, mint, round, next round, top miner,
      // treasury, treasury tokens, system, token, ORE, SlotHashes, var, entropy, mint authority, ore-mint.
      instruction: { programIdIndex: 14, accounts: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 10, 16, 11, 17], data: encodeBase58(Uint8Array.of(INSTRUCTION.reset)) },
      inner: [
        { programIdIndex: 12, accounts: [0, 6], data: encodeBase58(createAccountData(nextRent, nextLayout, k.programBytes)), stackHeight: 2 },
        { programIdIndex: 14, accounts: [1], data: encodeBase58(logData(event)), stackHeight: 2 },
      ],
      logs,
      preBalances: pre,
      postBalances: post,
      units: 61_240,
    });
  }

  /** The crank's close of round `roundId` at `slot`: its rent goes back to the crank, who paid it. */
  close(roundId: number, slot: number, signature: string): TransactionJson {
    const k = this.keys;
    const program = k.program;
    const rent = k.rent(layoutOf(this.ctx.eras, roundId));
    return this.transaction(slot, signature, {
      accountKeys: [k.crank, k.board, k.round(roundId), k.treasury, k.system, program],
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 2 },
      // signer, board, rent payer (the crank itself), round, treasury, system.
      instruction: { programIdIndex: 5, accounts: [0, 1, 0, 2, 3, 4], data: encodeBase58(Uint8Array.of(INSTRUCTION.close)) },
      inner: [],
      logs: [`Program ${program} invoke [1]`, `Program ${program} consumed 4310 of ${CU_LIMIT} compute units`, `Program ${program} success`],
      preBalances: [WALLET_LAMPORTS, this.rent.board, rent, this.rent.treasury, 1, 1],
      postBalances: [WALLET_LAMPORTS - FEE + rent, this.rent.board, 0, this.rent.treasury, 1, 1],
      units: 4_310,
    });
  }

  private blockhash(slot: number): string {
    let hash = this.blockhashes.get(slot);
    if (hash === undefined) {
      hash = encodeBase58(hashOf('blockhash', slot));
      if (this.blockhashes.size >= BLOCKHASHES_KEPT) this.blockhashes.delete(this.blockhashes.keys().next().value!);
      this.blockhashes.set(slot, hash);
    }
    return hash;
  }

  private transaction(
    slot: number,
    signature: string,
    parts: {
      accountKeys: string[];
      header: TransactionJson['transaction']['message']['header'];
      /** An instruction of another program before the program's own. */
      prelude?: Omit<InstructionJson, 'stackHeight'>;
      instruction: Omit<InstructionJson, 'stackHeight'>;
      inner: InstructionJson[];
      logs: string[];
      preBalances: number[];
      postBalances: number[];
      units: number;
    },
  ): TransactionJson {
    return {
      slot,
      blockTime: blockTimeOf(slot),
      transaction: {
        signatures: [signature],
        message: {
          accountKeys: parts.accountKeys,
          header: parts.header,
          recentBlockhash: this.blockhash(slot - 2),
          instructions: [...(parts.prelude === undefined ? [] : [{ ...parts.prelude, stackHeight: null }]), { ...parts.instruction, stackHeight: null }],
        },
      },
      meta: {
        err: null,
        status: { Ok: null },
        fee: FEE,
        preBalances: parts.preBalances,
        postBalances: parts.postBalances,
        innerInstructions: parts.inner.length === 0 ? [] : [{ index: parts.prelude === undefined ? 0 : 1, instructions: parts.inner }],
        logMessages: parts.logs,
        preTokenBalances: [],
        postTokenBalances: [],
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: parts.units,
      },
    };
  }
}

function transferData(lamports: number): Uint8Array {
  const data = new Uint8Array(12);
  const view = new DataView(data.buffer);
  view.setUint32(0, SYSTEM_TRANSFER, true);
  view.setBigUint64(4, BigInt(lamports), true);
  return data;
}

function hashOf(label: string, value: Uint8Array | number): Buffer {
  return createHash('sha256').update(label).update(typeof value === 'number' ? String(value) : value).digest();
}

/** `lamports_to_sol(x)` as Rust's `{}` prints an f64: shortest form, no exponent. */
function formatSol(lamports: number): string {
  const whole = Math.floor(lamports / LAMPORTS_PER_SOL);
  const fraction = (lamports % LAMPORTS_PER_SOL).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

