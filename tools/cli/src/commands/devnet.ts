import { InputError } from '@gridlab/errors';
import type { Command } from 'commander';
import { registerReset } from './reset';

const DEFAULT_RPC = process.env['SOLANA_RPC_URL'] ?? 'http://127.0.0.1:8899';
const DEFAULT_MINT = process.env['TOKEN_MINT'] ?? 'oreoU2P8bN6jkk3jbaiVxYnG1dCXcYxwhwyK9jSybcp';

/** A decimal amount ("1.5") in base units of `decimals`, exactly. */
function baseUnits(amount: string, decimals: number, flag: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (match === null || (match[2] ?? '').length > decimals) throw new InputError(`${flag} must be a decimal number with at most ${decimals} decimals`);
  return BigInt(match[1]! + (match[2] ?? '').padEnd(decimals, '0'));
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** `gridlab devnet fund`: SOL for fees and payment tokens for a wallet, on the local devnet only. */
export function registerDevnet(program: Command): void {
  const devnet = program.command('devnet').description('helpers for the local devnet (never a real cluster)');
  registerReset(devnet);
  devnet
    .command('fund')
    .description('airdrop SOL and mint payment tokens to a wallet on the devnet; prints the two transaction signatures')
    .requiredOption('--owner <base58>', 'wallet public key')
    .option('--tokens <n>', 'payment tokens to mint (decimal)', '1')
    .option('--sol <n>', 'SOL to airdrop (decimal)', '1')
    .option('--rpc <url>', 'devnet JSON-RPC URL', DEFAULT_RPC)
    .option('--mint <base58>', 'payment token mint', DEFAULT_MINT)
    .action(async (opts: { owner: string; tokens: string; sol: string; rpc: string; mint: string }) => {
      // The Solana libraries load only when this command runs.
      const { Connection, LAMPORTS_PER_SOL, PublicKey } = await import('@solana/web3.js');
      const { getMint } = await import('@solana/spl-token');
      let owner: InstanceType<typeof PublicKey>;
      try {
        owner = new PublicKey(opts.owner);
      } catch {
        throw new InputError('--owner must be a base58 public key');
      }
      const connection = new Connection(opts.rpc, 'confirmed');
      const lamports = baseUnits(opts.sol, 9, '--sol');
      const airdrop = lamports > 0n ? await connection.requestAirdrop(owner, Number(lamports)) : null;
      const { decimals } = await getMint(connection, new PublicKey(opts.mint), 'confirmed');
      const amount = baseUnits(opts.tokens, decimals, '--tokens');
      const mint = amount > 0n ? await rpc(opts.rpc, 'devnet_mintTokens', [owner.toBase58(), amount.toString()]) : null;
      process.stdout.write(
        `${JSON.stringify({ owner: owner.toBase58(), sol: Number(lamports) / LAMPORTS_PER_SOL, tokens: opts.tokens, airdropSignature: airdrop, mintSignature: mint })}\n`,
      );
    });
}
