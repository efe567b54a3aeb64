import { readOreTransaction, type OrePdas, type SolanaRpc } from '@gridlab/chain';
import type { MinerDeployed } from '@gridlab/contracts';

const SQUARES = 25;
/** Signatures read per call: a busy round takes ~400 deploys over its minute. */
const PAGE = 1000;

function squaresOf(mask: number): number[] {
  const out: number[] = [];
  for (let s = 0; s < SQUARES; s++) if ((mask & (1 << s)) !== 0) out.push(s);
  return out;
}

/**
 * The deploys of a live round whose transactions landed after `after` (at `confirmed`: a
 * deploy is shown as soon as the cluster voted on it; the settled rows come from
 * `finalized` ones), oldest first, from their DeployEvents, or before events existed from
 * the Deploy instructions (an automated one's squares and amount are the automation's and
 * not shown). The newest signature seen is where the next call starts.
 */
export async function liveDeploys(rpc: SolanaRpc, pdas: OrePdas, roundId: number, after: string | null): Promise<{ deploys: MinerDeployed[]; newest: string | null }> {
  const address = pdas.round(roundId).toBase58();
  const page = await rpc.getSignaturesForAddress(address, { limit: PAGE, commitment: 'confirmed', ...(after === null ? {} : { until: after }) });
  if (page.length === 0) return { deploys: [], newest: after };
  const signatures = page.filter((s) => s.err === null).map((s) => s.signature).reverse();
  const fetched = await rpc.getTransactions(signatures, 'confirmed');
  const ids = { programId: pdas.programId.toBase58(), board: pdas.board.toBase58() };
  const deploys: MinerDeployed[] = [];
  for (const json of fetched) {
    if (json === null) continue;
    const tx = readOreTransaction(json, ids);
    const events = tx.events.filter((e) => e.kind === 'deploy' && e.roundId === roundId);
    for (const e of events) {
      if (e.kind !== 'deploy') continue;
      deploys.push({
        roundId,
        address: e.authority,
        signer: e.signer,
        signature: tx.signature,
        slot: tx.slot,
        squares: squaresOf(e.mask),
        amount: e.amount,
        automated: e.strategy !== null,
        automationStrategy: e.strategy,
      });
    }
    if (events.length > 0) continue;
    for (const call of tx.deploys) {
      if (!call.rounds.includes(address)) continue;
      deploys.push({
        roundId,
        address: call.authority,
        signer: call.signer,
        signature: tx.signature,
        slot: tx.slot,
        squares: call.automated ? null : squaresOf(call.args.squares),
        amount: call.automated ? null : call.args.amount,
        automated: call.automated,
        automationStrategy: null,
      });
    }
  }
  return { deploys, newest: page[0]!.signature };
}
