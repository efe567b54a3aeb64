/**
 * Test hooks that land what an attacker can land on mainnet, recorded as the chain records
 * them (the devnet does not execute the ORE program itself, so each is written in the
 * shape the program's own run gives it): transactions meant to make the indexer refuse
 * rounds for good. Each one the real program would accept, and each carries only what the
 * program would write (its events are Logs signed by the board, as `program_log` does).
 */
import { createHash } from 'node:crypto';
import { encodeBase58 } from '@gridlab/chain';
import type { TxRecord } from './ledger';
import { deployEvent, INSTRUCTION, logData } from '../program/events';
import { U64_MAX } from '../program/state';

const SYSTEM = '11111111111111111111111111111111';

/** What the hooks need of the chain. */
export interface AttackContext {
  readonly seed: number;
  readonly programId: string;
  readonly board: string;
  /** The PDA of round `id`. */
  round(id: number): string;
  readonly slot: number;
  readonly blockTime: number;
  readonly blockhash: string;
  /** The round the board is playing (the only one a deploy can land in). */
  readonly liveRoundId: number;
}

function keyBytes(label: string, seed: number): Uint8Array {
  return createHash('sha256').update(`gridlab-devnet-attack:${seed}:${label}`).digest();
}

function keyOf(label: string, seed: number): string {
  return encodeBase58(keyBytes(label, seed));
}

function signatureOf(label: string, ctx: AttackContext): string {
  return encodeBase58(createHash('sha512').update(`gridlab-devnet-attack:${ctx.seed}:${label}:${ctx.slot}`).digest());
}

/** `Deploy` data with an amount no u64 arithmetic of ours may take for a number: `[6] ++ u64::MAX ++ squares`. */
function overflowDeployData(squares: number): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  data[0] = INSTRUCTION.deploy;
  view.setBigUint64(1, U64_MAX, true);
  view.setUint32(9, squares >>> 0, true);
  return data;
}

function record(ctx: AttackContext, signature: string, version: 'legacy' | 0, message: Record<string, unknown>, accounts: string[], meta: { inner: unknown[]; logs: string[]; loaded?: { writable: string[]; readonly: string[] } }): TxRecord {
  return {
    signature,
    slot: ctx.slot,
    blockTime: ctx.blockTime,
    err: null,
    accounts,
    transaction: { version, signatures: [signature], message },
    meta: {
      err: null,
      status: { Ok: null },
      fee: 5000,
      preBalances: accounts.map(() => 0),
      postBalances: accounts.map(() => 0),
      preTokenBalances: [],
      postTokenBalances: [],
      logMessages: meta.logs,
      innerInstructions: meta.inner,
      rewards: [],
      loadedAddresses: meta.loaded ?? { writable: [], readonly: [] },
    },
  };
}

/**
 * A successful deploy into the live round with amount `u64::MAX` and an empty mask (the
 * program deploys nothing and logs a genuine, board-signed DeployEvent of that amount),
 * whose address lookup table lists `listed` round addresses, so getSignaturesForAddress
 * returns it for each of them: past rounds and rounds not opened yet alike.
 */
export function overflowDeploy(ctx: AttackContext, listed: readonly number[]): TxRecord {
  const attacker = keyOf('deployer', ctx.seed);
  const miner = keyOf('deployer-miner', ctx.seed);
  const automation = keyOf('deployer-automation', ctx.seed);
  const config = keyOf('config', ctx.seed);
  const live = ctx.round(ctx.liveRoundId);
  // Static keys, then the lookup table's addresses (v0: indexes continue into them).
  const keys = [attacker, automation, ctx.board, miner, live, config, SYSTEM, ctx.programId];
  const loaded = listed.map((id) => ctx.round(id)).filter((a) => a !== live);
  const event = deployEvent({
    authority: keyBytes('deployer', ctx.seed),
    amount: 0,
    mask: 0,
    roundId: ctx.liveRoundId,
    signer: keyBytes('deployer', ctx.seed),
    strategy: null,
    totalSquares: 0,
    ts: ctx.blockTime,
  });
  // The event's amount is the instruction's: u64::MAX (@40 of the 120-byte DeployEvent).
  new DataView(event.buffer, event.byteOffset).setBigUint64(40, U64_MAX, true);
  const ore = keys.indexOf(ctx.programId);
  const signature = signatureOf('overflow-deploy', ctx);
  return record(
    ctx,
    signature,
    0,
    {
      accountKeys: keys,
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
      recentBlockhash: ctx.blockhash,
      // The program's order since 2025-12-09: signer, authority, automation, board, config, miner, round, system, ORE.
      instructions: [{ programIdIndex: ore, accounts: [0, 0, 1, 2, 5, 3, 4, 6, 7], data: encodeBase58(overflowDeployData(0)), stackHeight: null }],
      addressTableLookups: [{ accountKey: keyOf('lookup-table', ctx.seed), writableIndexes: [], readonlyIndexes: loaded.map((_, i) => i) }],
    },
    [...keys, ...loaded],
    {
      inner: [{ index: 0, instructions: [{ programIdIndex: ore, accounts: [2], data: encodeBase58(logData(event)), stackHeight: 2 }] }],
      logs: [`Program ${ctx.programId} invoke [1]`, `Program ${ctx.programId} invoke [2]`, `Program ${ctx.programId} success`, `Program ${ctx.programId} success`],
      loaded: { writable: [], readonly: loaded },
    },
  );
}

/**
 * A successful manual deploy of `lamports` to square 0 of the live round, in the account
 * order of the program before 2025-12-08 (signer, authority, automation, board, miner,
 * round, system), with round `trailing`'s address appended: the program reads only its own
 * positions, so the trailing round is named and untouched.
 */
export function trailingRoundDeploy(ctx: AttackContext, trailing: number, lamports: number): TxRecord {
  const attacker = keyOf('trailer', ctx.seed);
  const miner = keyOf('trailer-miner', ctx.seed);
  const automation = keyOf('trailer-automation', ctx.seed);
  const keys = [attacker, automation, ctx.board, miner, ctx.round(ctx.liveRoundId), SYSTEM, ctx.programId, ctx.round(trailing)];
  const data = new Uint8Array(13);
  data[0] = INSTRUCTION.deploy;
  new DataView(data.buffer).setBigUint64(1, BigInt(lamports), true);
  data[9] = 1;
  const event = deployEvent({
    authority: keyBytes('trailer', ctx.seed),
    amount: lamports,
    mask: 1,
    roundId: ctx.liveRoundId,
    signer: keyBytes('trailer', ctx.seed),
    strategy: null,
    totalSquares: 1,
    ts: ctx.blockTime,
  });
  const signature = signatureOf(`trailing-deploy-${trailing}`, ctx);
  return record(
    ctx,
    signature,
    'legacy',
    {
      accountKeys: keys,
      header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
      recentBlockhash: ctx.blockhash,
      instructions: [{ programIdIndex: 6, accounts: [0, 0, 1, 2, 3, 4, 5, 7], data: encodeBase58(data), stackHeight: null }],
    },
    keys,
    {
      inner: [{ index: 0, instructions: [{ programIdIndex: 6, accounts: [2], data: encodeBase58(logData(event)), stackHeight: 2 }] }],
      logs: [`Program ${ctx.programId} invoke [1]`, `Program ${ctx.programId} invoke [2]`, `Program ${ctx.programId} success`, `Program ${ctx.programId} success`],
    },
  );
}
