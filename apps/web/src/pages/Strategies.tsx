import { useState } from 'preact/hooks';
import { api } from '../api';
import { Chart } from '../components/Chart';
import { ErrorBox, Loaded, Stat } from '../components/Status';
import { int, pct, signedSol, when } from '../format';
import { useActions, useLoad } from '../hooks';

function ForwardView({ id }: { id: string }) {
  const [forward, reload] = useLoad((signal) => api.forward(id, { signal }), [id], 30_000);
  return (
    <Loaded load={forward} what="forward stats" retry={reload}>
      {(f) => (
        <div data-testid="forward-stats">
          <div class="stats">
            <Stat label="Rounds settled" value={int(f.roundsSettled)} />
            <Stat label="Net profit" value={signedSol(f.netProfitSol)} />
            <Stat label="ROI" value={`${f.roiPercent.toFixed(2)}%`} />
            <Stat label="Win rate per square" value={pct(f.perSquareWinRate)} />
            <Stat label="Max drawdown" value={`${f.maxDrawdownSol.toFixed(4)} SOL`} />
          </div>
          {f.equityCurve.length > 1 ? (
            <Chart
              testId="forward-chart"
              x={f.equityCurve.map((p) => p.round)}
              series={[{ label: 'Net PnL (SOL)', values: f.equityCurve.map((p) => p.balanceLamports / 1e9), fill: true }]}
              label="Forward-test equity curve"
              summary={`net ${signedSol(f.netProfitSol)} over ${f.roundsSettled} settled rounds`}
              xLabel="round"
              yLabel="SOL"
            />
          ) : (
            <p class="muted">The equity curve appears once two rounds have settled.</p>
          )}
        </div>
      )}
    </Loaded>
  );
}

/** The caller's strategies: forward stats and curve, activate, deactivate, delete. */
export function StrategiesPage({ selected }: { selected: string | null }) {
  const [list, reload] = useLoad((signal) => api.listStrategies({ signal }), []);
  const { busy, failure, act } = useActions(reload);
  // The last strategy deleted here: restorable until the purge (LAB_DELETED_RETENTION_DAYS).
  const [deleted, setDeleted] = useState<{ id: string; name: string } | null>(null);
  return (
    <section aria-labelledby="strategies-title">
      <h1 id="strategies-title">My strategies</h1>
      {failure !== null && <ErrorBox error={failure} />}
      {deleted !== null && (
        <p role="status" data-testid="strategy-deleted">
          Deleted “{deleted.name}”; it can be restored with its record for a while.{' '}
          <button
            type="button"
            class="secondary"
            disabled={busy === deleted.id}
            onClick={() =>
              void act(deleted.id, async () => {
                await api.restoreStrategy(deleted.id);
                setDeleted(null);
              })
            }
          >
            Restore
          </button>
        </p>
      )}
      <Loaded load={list} what="your strategies" retry={reload}>
        {(l) =>
          l.count === 0 ? (
            <p class="muted">
              No strategy yet: make one in the <a href="#/lab">Strategy Lab</a> and save it.
            </p>
          ) : (
            <ul class="cards" data-testid="strategy-list">
              {l.strategies.map((s) => (
                <li key={s.id} class="card" data-strategy={s.id}>
                  <h2>
                    <a href={`#/strategies?id=${s.id}`}>{s.name}</a>{' '}
                    <span class={s.active ? 'badge badge-on' : 'badge'}>{s.active ? 'active' : s.stoppedReason === null ? 'inactive' : `stopped: ${s.stoppedReason.replace(/_/g, ' ')}`}</span>
                  </h2>
                  <p class="muted">
                    {String((s.dsl as { base_strategy?: string }).base_strategy ?? '').replace(/_/g, ' ')} · created {when(s.createdAt)} · {int(s.stats.roundsSettled)} rounds settled · {signedSol(s.stats.netProfitSol)} (
                    {s.stats.roiPercent.toFixed(2)}%)
                  </p>
                  <div class="actions">
                    <button type="button" class="secondary" disabled={busy === s.id} onClick={() => void act(s.id, () => api.updateStrategy(s.id, { active: !s.active }))}>
                      {s.active ? 'Deactivate' : 'Activate'} <span class="visually-hidden">{s.name}</span>
                    </button>
                    <button
                      type="button"
                      class="danger"
                      disabled={busy === s.id}
                      onClick={() => {
                        if (confirm(`Delete the strategy “${s.name}”? It can be restored with its forward record until it is purged.`)) {
                          void act(s.id, async () => {
                            await api.deleteStrategy(s.id);
                            setDeleted({ id: s.id, name: s.name });
                          });
                        }
                      }}
                    >
                      Delete <span class="visually-hidden">{s.name}</span>
                    </button>
                  </div>
                  {selected === s.id && <ForwardView id={s.id} />}
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </section>
  );
}
