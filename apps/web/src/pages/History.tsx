import type { Round, Stats } from '@gridlab/client';
import { api } from '../api';
import { Chart } from '../components/Chart';
import { Grid } from '../components/Grid';
import { Loaded, Stat } from '../components/Status';
import { int, pct, pValue, sol, when } from '../format';
import { useLoad } from '../hooks';

function SquaresTable({ stats }: { stats: Stats }) {
  return (
    <div class="table-wrap">
      <table class="data" data-testid="squares-table">
        <caption class="visually-hidden">Hits, hit rate and droughts of each square</caption>
        <thead>
          <tr>
            <th scope="col">Square</th>
            <th scope="col">Hits</th>
            <th scope="col">Hit rate</th>
            <th scope="col">Expected hits</th>
            <th scope="col">Current drought</th>
            <th scope="col">Longest drought</th>
            <th scope="col">Deployed</th>
          </tr>
        </thead>
        <tbody>
          {stats.perGrid.map((g) => (
            <tr key={g.square}>
              <th scope="row">#{g.square}</th>
              <td class="num">{int(g.hits)}</td>
              <td class="num">{pct(g.hitRate)}</td>
              <td class="num">{g.expectedHits.toFixed(1)}</td>
              <td class="num">{int(g.currentDrought)} rounds</td>
              <td class="num">{int(g.maxDrought)} rounds</td>
              <td class="num">{g.deployedSol.toLocaleString('en-US', { maximumFractionDigits: 2 })} SOL</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RoundBrowser({ id }: { id: number | null }) {
  const [round, reload] = useLoad(async (signal) => {
    if (id !== null) return api.round(id, { signal });
    const latest = await api.rounds({ limit: 1 }, { signal });
    const first = latest.rounds[0];
    return first === undefined ? null : api.round(first.id, { signal });
  }, [id]);
  return (
    <section aria-labelledby="browser-title">
      <h2 id="browser-title">Round browser</h2>
      <Loaded load={round} what="the round" retry={reload}>
        {(r) =>
          r === null ? (
            <p class="muted">No round is indexed yet.</p>
          ) : (
            <div data-testid="round-browser">
              <nav class="pager" aria-label="Rounds">
                <a class={r.prevId === null ? 'button disabled' : 'button'} href={r.prevId === null ? undefined : `#/history?round=${r.prevId}`} aria-disabled={r.prevId === null}>
                  ← Previous
                </a>
                <span>
                  Round <strong data-testid="browser-round-id">{r.id}</strong> · {when(r.settledAt)}
                </span>
                <a class={r.nextId === null ? 'button disabled' : 'button'} href={r.nextId === null ? undefined : `#/history?round=${r.nextId}`} aria-disabled={r.nextId === null}>
                  Next →
                </a>
              </nav>
              <div class="stats">
                <Stat label="Winning square" value={r.winningSquare === null ? 'voided' : `#${r.winningSquare}`} />
                <Stat label="Deployed" value={sol(r.totalDeployed)} />
                <Stat label="Returned" value={sol(r.totalWinnings)} />
                <Stat label="Miners" value={r.totalMiners === null ? 'unknown' : int(r.totalMiners)} />
                <Stat label="Payout rule" value={r.payoutRule} />
              </div>
              {r.source === 'transactions_partial' && (
                <p class="warning" data-testid="partly-known">
                  Partly known: some of this round's deploys were made by an automation before 2025-12-30, when the chain did not record which squares an automation chose. Its totals and outcome are exact;
                  the squares marked unknown are not shown on chain.
                </p>
              )}
              <Grid
                cells={r.deployed.map((deployed, i) => ({ deployed, miners: r.count[i] ?? null }))}
                highlight={r.winningSquare === null ? [] : [r.winningSquare]}
                caption={`Deployed SOL per square in round ${r.id}; the winning square is outlined`}
              />
            </div>
          )
        }
      </Loaded>
    </section>
  );
}

function DeployedOverTime({ rounds }: { rounds: readonly Round[] }) {
  const ordered = [...rounds].sort((a, b) => a.id - b.id);
  const x = ordered.map((r) => r.id);
  const values = ordered.map((r) => r.totalDeployed / 1e9);
  const total = values.reduce((a, b) => a + b, 0);
  return (
    <Chart
      testId="deployed-chart"
      x={x}
      series={[{ label: 'Deployed (SOL)', values, fill: true }]}
      label="Deployed SOL per round"
      summary={`${ordered.length} rounds from ${x[0] ?? '-'} to ${x[x.length - 1] ?? '-'}, ${(total / Math.max(1, ordered.length)).toFixed(3)} SOL on average`}
      xLabel="round"
      yLabel="SOL"
    />
  );
}

export function HistoryPage({ roundId }: { roundId: number | null }) {
  const [stats, reloadStats] = useLoad((signal) => api.stats({ signal }), []);
  const [recent, reloadRecent] = useLoad((signal) => api.rounds({ limit: 500 }, { signal }), []);
  return (
    <section aria-labelledby="history-title">
      <h1 id="history-title">History and statistics</h1>
      <Loaded load={stats} what="statistics" retry={reloadStats}>
        {(s) => (
          <>
            <div class="stats" data-testid="stats">
              <Stat label="Rounds indexed" value={int(s.roundsIndexed)} />
              <Stat label="Deployed" value={`${s.totalDeployedSol.toLocaleString('en-US', { maximumFractionDigits: 2 })} SOL`} />
              <Stat label="Returned" value={`${s.totalWinningsSol.toLocaleString('en-US', { maximumFractionDigits: 2 })} SOL`} />
              <Stat label="Effective house edge" value={s.effectiveHouseEdge === null ? '—' : pct(s.effectiveHouseEdge)} hint="1 − SOL paid back ÷ SOL deployed" />
              <Stat
                label="Uniformity (χ² p)"
                value={pValue(s.chiSquared.pValue)}
                hint={`χ² = ${s.chiSquared.statistic.toFixed(2)} over ${s.chiSquared.sampleSize} rounds, 24 degrees of freedom: a small p means the winning squares are unlikely to be uniform`}
              />
            </div>
            <h2>Per square</h2>
            <Grid
              cells={s.perGrid.map((g) => ({ deployed: g.deployedSol * 1e9, miners: 0, note: `${int(g.hits)} hits, drought ${int(g.currentDrought)}` }))}
              caption="Deployed SOL per square over all rounds, with hits and current drought"
              relative
            />
            <SquaresTable stats={s} />
          </>
        )}
      </Loaded>
      <h2>Deployed SOL over time</h2>
      <Loaded load={recent} what="recent rounds" retry={reloadRecent}>
        {(list) => <DeployedOverTime rounds={list.rounds} />}
      </Loaded>
      <RoundBrowser id={roundId} />
    </section>
  );
}
