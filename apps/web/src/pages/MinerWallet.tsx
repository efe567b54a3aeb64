import { isGridlabApiError, type MinerExportFormat, type MinerRound, type MinerSummary, type MinerWindow } from '@gridlab/client';
import { useEffect, useState } from 'preact/hooks';
import { api, describe } from '../api';
import { Chart } from '../components/Chart';
import { Grid } from '../components/Grid';
import { ErrorBox, Loaded, Loading, Stat } from '../components/Status';
import { int, ore, pct, signedSol, sol, when } from '../format';
import { useLoad } from '../hooks';
import { exportFileName, netCurve, rowOre, squareHeat, WINDOWS, type MinerWindowName } from '../miner-view';

const PAGE_ROWS = 50;
const EXPORT_MEDIA: Readonly<Record<MinerExportFormat, string>> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };

/** A switch of radio buttons (one name, one legend). */
function Switch<T extends string>({ legend, name, options, value, onChange }: { legend: string; name: string; options: readonly { value: T; label: string }[]; value: T; onChange: (value: T) => void }) {
  return (
    <fieldset class="metric-toggle">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o.value} class="radio">
          <input type="radio" name={name} value={o.value} checked={value === o.value} onChange={() => onChange(o.value)} data-testid={`${name}-${o.value}`} />
          {o.label}
        </label>
      ))}
    </fieldset>
  );
}

function slotsRange(range: MinerWindow['medianSlotsLeft']): string {
  if (range === null) return '—';
  return range.max === null ? `≥ ${int(range.min)} slots` : `${int(range.min)}–${int(range.max)} slots`;
}

/** A signed SOL result, to the lamport-thousand (devnet and small wallets net fractions of a cent). */
function Net({ lamports }: { lamports: number }) {
  return <span class={lamports >= 0 ? 'good' : 'error'}>{signedSol(lamports / 1e9, 6)}</span>;
}

function SummaryCards({ summary }: { summary: MinerSummary }) {
  const [span, setSpan] = useState<MinerWindowName>('all');
  const w = summary[span];
  const claimable = summary.claimable;
  return (
    <section aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <Switch legend="Window" name="window" options={WINDOWS} value={span} onChange={setSpan} />
      {w.rounds === 0 ? (
        <p class="muted">No round of this wallet settled in this window.</p>
      ) : (
        <p class="muted">
          Rounds {w.firstRound === null ? '—' : int(w.firstRound)} to {w.lastRound === null ? '—' : int(w.lastRound)}
          {w.unknownRounds > 0 && <> · {int(w.unknownRounds)} rounds the chain does not prove are counted but left out of the sums</>}
        </p>
      )}
      <div class="stats" data-testid="miner-summary">
        <Stat label="Rounds" value={int(w.rounds)} hint={`${int(w.deploys)} deploys`} />
        <Stat label="Deployed" value={sol(w.deployed)} />
        <Stat label="SOL back" value={sol(w.solBack)} />
        <Stat label="Net SOL" value={<Net lamports={w.net} />} hint="SOL back − deployed − network, priority and executor fees (ORE apart)" />
        <Stat label="Win rate" value={w.winRate === null ? '—' : pct(w.winRate)} hint={`${int(w.wins)} rounds on the winning square`} />
        <Stat label="Top-miner wins" value={int(w.topMinerWins)} />
        <Stat label="Motherlode hits" value={int(w.motherlodeHits)} />
        <Stat label="Median slots left" value={slotsRange(w.medianSlotsLeft)} hint="slots from its deploys to the round's end" />
      </div>
      <h3>Fees</h3>
      <div class="stats" data-testid="miner-fees">
        <Stat label="Admin fee" value={sol(w.adminFee)} />
        <Stat label="Protocol fee" value={sol(w.protocolFee)} />
        <Stat label="Network fees" value={sol(w.networkFee)} />
        <Stat label="Priority fees" value={sol(w.priorityFee)} />
        <Stat label="Executor fees" value={sol(w.executorFee)} hint="paid by its automation to the executor" />
        <Stat label="Checkpoint deposits" value={sol(w.checkpointDeposits)} hint="returned by its own checkpoint" />
      </div>
      <h3>ORE</h3>
      <div class="stats" data-testid="miner-ore">
        <Stat label="ORE won" value={`${ore(w.ore, 4)} ORE`} />
        <Stat label="Top-miner reward" value={`${ore(w.oreTopMiner, 4)} ORE`} />
        <Stat label="Split reward" value={`${ore(w.oreSplit, 4)} ORE`} />
        <Stat label="Motherlode" value={`${ore(w.oreMotherlode, 4)} ORE`} />
        <Stat label="ORE value" value={sol(w.oreValue)} hint="each round's ORE at the price of its day" />
        <Stat label="Refining fee" value={`${ore(w.oreRefiningFee, 4)} ORE`} hint="10% of the ORE, taken when it is claimed" />
        <Stat label="Net with ORE" value={<Net lamports={w.netWithOre} />} hint="net SOL + the ORE's value − the refining fee" />
      </div>
      {claimable !== null && (
        <>
          <h3>Claimable now</h3>
          <div class="stats" data-testid="miner-claimable">
            <Stat label="SOL" value={sol(claimable.sol)} />
            <Stat label="ORE" value={`${ore(claimable.ore, 4)} ORE`} hint="the refining fee takes 10% when claimed" />
            <Stat label="Refined ORE" value={`${ore(claimable.refinedOre, 4)} ORE`} />
            <Stat label="Checkpointed round" value={int(claimable.checkpointedRound)} />
          </div>
        </>
      )}
    </section>
  );
}

function Performance({ address }: { address: string }) {
  const [bucket, setBucket] = useState<'day' | 'hour'>('day');
  const [perf, reload] = useLoad((signal) => api.minerPerformance(address, { bucket }, { signal }), [address, bucket]);
  return (
    <section aria-labelledby="pnl-title">
      <h2 id="pnl-title">Cumulative P&amp;L</h2>
      <Switch
        legend="Buckets"
        name="bucket"
        options={[
          { value: 'day', label: 'Daily (all time)' },
          { value: 'hour', label: 'Hourly (48 h)' },
        ]}
        value={bucket}
        onChange={setBucket}
      />
      <Loaded load={perf} what="the P&L" retry={reload}>
        {(p) => {
          if (p.points.length === 0) return <p class="muted">No round in this period.</p>;
          const curve = netCurve(p, Date.now());
          const last = p.points[p.points.length - 1]!;
          return (
            <Chart
              testId="pnl-chart"
              time
              x={curve.x}
              series={[{ label: 'Net SOL', values: curve.y, fill: true }]}
              label="Cumulative net SOL"
              summary={`${p.points.length} ${p.bucket === 'day' ? 'day' : 'hour'}${p.points.length === 1 ? '' : 's'} played, ${signedSol(last.cumulativeNet / 1e9, 6)} in all, ${ore(last.cumulativeOre, 4)} ORE won`}
              yLabel="SOL"
            />
          );
        }}
      </Loaded>
    </section>
  );
}

function SquaresHeat({ rows }: { rows: readonly MinerRound[] }) {
  const [by, setBy] = useState<'sol' | 'rounds'>('sol');
  const heat = squareHeat(rows);
  return (
    <section aria-labelledby="squares-title">
      <h2 id="squares-title">Its squares</h2>
      <p class="muted">
        From the {heat.known === 1 ? 'round' : `${int(heat.known)} rounds`} loaded below{heat.unknown > 0 ? ` (${int(heat.unknown)} more whose squares the chain does not show)` : ''}: load more rounds to widen it.
      </p>
      <Switch
        legend="Colour the squares by"
        name="heat"
        options={[
          { value: 'sol', label: 'SOL deployed' },
          { value: 'rounds', label: 'Rounds played' },
        ]}
        value={by}
        onChange={setBy}
      />
      <Grid
        cells={heat.lamports.map((deployed, i) => ({ deployed, miners: null, note: `${int(heat.rounds[i] ?? 0)} round${heat.rounds[i] === 1 ? '' : 's'}` }))}
        caption={`${by === 'sol' ? 'SOL this wallet deployed' : 'Rounds this wallet played'} on each square, over the ${heat.known} rounds loaded`}
        {...(by === 'rounds' ? { metric: { values: heat.rounds, format: (n: number) => `${int(n)}×` } } : {})}
      />
    </section>
  );
}

/** Saves the ledger as the server writes it, through the session mirror. */
function ExportButtons({ address }: { address: string }) {
  const [busy, setBusy] = useState<MinerExportFormat | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = async (format: MinerExportFormat) => {
    setBusy(format);
    setError(null);
    try {
      const parts: string[] = [];
      for await (const chunk of api.exportMinerRoundsText(address, format)) parts.push(chunk);
      const url = URL.createObjectURL(new Blob(parts, { type: EXPORT_MEDIA[format] }));
      const link = document.createElement('a');
      link.href = url;
      link.download = exportFileName(address, format);
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div class="actions">
      <button type="button" class="secondary" disabled={busy !== null} onClick={() => void save('csv')}>
        {busy === 'csv' ? 'Exporting…' : 'Export CSV'}
      </button>
      <button type="button" class="secondary" disabled={busy !== null} onClick={() => void save('ndjson')}>
        {busy === 'ndjson' ? 'Exporting…' : 'Export NDJSON'}
      </button>
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function Ledger({ rows }: { rows: readonly MinerRound[] }) {
  return (
    <div class="table-wrap">
      <table class="data" data-testid="miner-ledger">
        <caption class="visually-hidden">The wallet's rounds, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Round</th>
            <th scope="col">Settled</th>
            <th scope="col">Squares</th>
            <th scope="col" class="num">Deployed</th>
            <th scope="col" class="num">SOL back</th>
            <th scope="col" class="num">Net</th>
            <th scope="col" class="num">ORE</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">Slots left</th>
            <th scope="col">By</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.roundId}>
              <th scope="row">
                <a href={`#/history?round=${r.roundId}`}>{r.roundId}</a>
              </th>
              <td>{when(r.settledAt)}</td>
              <td>{r.squares === null ? 'unknown' : r.squares.length === 25 ? 'all 25' : r.squares.map((s) => `#${s}`).join(' ')}</td>
              <td class="num">{r.deployed === null ? '—' : sol(r.deployed)}</td>
              <td class="num">{r.solBack === null ? '—' : sol(r.solBack)}</td>
              <td class="num">{r.net === null ? '—' : <Net lamports={r.net} />}</td>
              <td class="num">{rowOre(r) === 0 ? '—' : `${ore(rowOre(r), 4)} ORE`}</td>
              <td>{r.heldWinningSquare === null ? '—' : r.heldWinningSquare ? (r.topMiner === true ? 'won, top miner' : 'won') : 'lost'}</td>
              <td class="num">{int(r.slotsLeft)}</td>
              <td>{r.automated ? 'automation' : 'wallet'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface LedgerPages {
  readonly rows: readonly MinerRound[];
  readonly nextBefore: number | null;
}

/** One wallet: its summary, P&L, squares and ledger. */
export function MinerWallet({ address }: { address: string }) {
  const [summary, reloadSummary] = useLoad((signal) => api.miner(address, { signal }), [address]);
  const [ledger, setLedger] = useState<LedgerPages | null>(null);
  const [ledgerError, setLedgerError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const more = async (before: number | null, signal?: AbortSignal) => {
    setLoadingMore(true);
    setLedgerError(null);
    try {
      const page = await api.minerRounds(address, { limit: PAGE_ROWS, ...(before === null ? {} : { before }) }, signal === undefined ? {} : { signal });
      setLedger((old) => ({ rows: [...(old?.rows ?? []), ...page.rounds], nextBefore: page.nextBefore }));
    } catch (error) {
      if (signal?.aborted !== true) setLedgerError(error);
    } finally {
      setLoadingMore(false);
    }
  };
  useEffect(() => {
    const abort = new AbortController();
    void more(null, abort.signal);
    return () => abort.abort();
  }, [address]);

  if (summary.state === 'error' && isGridlabApiError(summary.error) && summary.error.status === 404) {
    return (
      <p data-testid="miner-not-found">
        No settled round of <code>{address}</code> is indexed. <a href="#/miners">Top miners</a>
      </p>
    );
  }
  return (
    <div data-testid="miner-wallet">
      <p>
        Wallet <code data-testid="miner-address">{address}</code> · <a href="#/miners">Top miners</a>
      </p>
      <Loaded load={summary} what="the wallet's summary" retry={reloadSummary}>
        {(s) => <SummaryCards summary={s} />}
      </Loaded>
      {summary.state === 'ok' && <Performance address={address} />}
      {ledger !== null && ledger.rows.length > 0 && <SquaresHeat rows={ledger.rows} />}
      <section aria-labelledby="ledger-title">
        <h2 id="ledger-title">Rounds</h2>
        <ExportButtons address={address} />
        {ledger === null && ledgerError === null && <Loading what="the wallet's rounds" />}
        {ledger !== null && <Ledger rows={ledger.rows} />}
        {ledgerError !== null && <ErrorBox error={ledgerError} retry={() => void more(ledger?.nextBefore ?? null)} />}
        {ledger !== null && ledger.nextBefore !== null && (
          <p>
            <button type="button" class="secondary" disabled={loadingMore} onClick={() => void more(ledger.nextBefore)}>
              {loadingMore ? 'Loading…' : `Load ${PAGE_ROWS} more`}
            </button>
          </p>
        )}
      </section>
    </div>
  );
}
