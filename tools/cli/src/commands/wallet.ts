import type { Command } from 'commander';
import { DEFAULT_API } from '../api';
const DEFAULT_RPC = process.env['SOLANA_RPC_URL'] ?? 'http://127.0.0.1:8899';

function print(issued: { apiKey: string; subscriberId: string; paidUntil: string }): void {
  process.stdout.write(`${JSON.stringify({ apiKey: issued.apiKey, subscriberId: issued.subscriberId, paidUntil: issued.paidUntil })}\n`);
}

// The Solana libraries load only when a wallet command runs (operator commands stay light).
const flows = () => import('../wallet/flows');

/** `gridlab keygen`, `gridlab subscribe` and `gridlab reissue`: the wallet side of the key flows. */
export function registerWallet(program: Command): void {
  program
    .command('keygen')
    .description('create a new wallet in a Solana keypair file (JSON array of 64 bytes, mode 600); prints {"publicKey","file"}')
    .requiredOption('-o, --outfile <file>', 'where to write the keypair')
    .option('--force', 'overwrite an existing file', false)
    .action(async (opts: { outfile: string; force: boolean }) => {
      process.stdout.write(`${JSON.stringify((await flows()).keygen(opts.outfile, opts.force))}\n`);
    });

  program
    .command('subscribe')
    .description(
      'Buy or renew a subscription: asks the API for a price and nonce, pays it on chain (TransferChecked + Memo, ' +
        'signed with --keypair), then redeems the payment with the wallet\'s signature (the nonce accepts no other); prints {"apiKey","subscriberId","paidUntil"}',
    )
    .requiredOption('--keypair <file>', 'Solana keypair JSON file of the paying wallet')
    .option('--plan <plan>', 'monthly or annual (12 months for 3x)', 'monthly')
    .option('--referral <subscriberId>', "an active subscriber's id: 10% off a monthly plan")
    .option('--api <url>', 'Gridlab API base URL', DEFAULT_API)
    .option('--rpc <url>', 'Solana JSON-RPC URL', DEFAULT_RPC)
    .option('--domain <origin>', "the API's public origin the signed redemption names (default: the origin of --api)")
    .action(async (opts: { keypair: string; plan: string; referral?: string; api: string; rpc: string; domain?: string }) => {
      print(await (await flows()).subscribeFlow(opts));
    });

  program
    .command('reissue')
    .description(
      'Rotate the API key: signs the reissue message with --keypair, only if it names the site (--domain); the old key stops working at once; prints the new key',
    )
    .requiredOption('--keypair <file>', 'Solana keypair JSON file of the subscribed wallet')
    .option('--api <url>', 'Gridlab API base URL', DEFAULT_API)
    .option('--domain <origin>', "the API's public origin the reissue message must name (default: the origin of --api)")
    .action(async (opts: { keypair: string; api: string; domain?: string }) => {
      print(await (await flows()).reissueFlow(opts));
    });
}
