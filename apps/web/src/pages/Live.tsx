import type { LiveView, Round } from '@gridlab/client';
import { useEffect, useState } from 'preact/hooks';
import { api, describe } from '../api';
import { Grid } from '../components/Grid';
import { Loaded, Loading, Stat } from '../components/Status';
import { countdown, int, sol, when } from '../format';
import { useLoad, useNow } from '../hooks';

/** The round's winning square, or null for a voided round. */
function winner(round: Round): number | null {
  return round.winningSquare;
}

export function LivePage() {
  const [live, setLive] = useState<{ view: LiveView; at: number } | null>(null);
  const [streamError, setStreamError] = useState<string | null>(null);
  const now = useNow();
  useEffect(() => {
    const abort = new AbortController();
    (async () => {
      try {
        // The first frame: the snapshot held now; then every change as it happens.
        setLive({ view: await api.live({ signal: abort.signal }), at: Date.now() });
        for await (const view of api.stream({ signal: abort.signal, onReconnect: () => setStreamError('reconnecting to the live stream…') })) {
          setLive({ view, at: Date.now() });
          setStreamError(null);
        }
      } catch (error) {
        if (!abort.signal.aborted) setStreamError(describe(error));
      }
    })();
    return () => abort.abort();
  }, []);
  const [recent, reloadRecent] = useLoad((signal) => api.rounds({ limit: 10 }, { signal }), [live?.view.prevRound?.id]);

  if (live === null) return streamError === null ? <Loading what="the live round" /> : <p class="error" role="alert">{streamError}</p>;
  const v = live.view;
  const secondsLeft = v.secondsLeft === null ? null : Math.max(0, v.secondsLeft - (now - live.at) / 1000);
  const last = v.prevRound;
  const lastWinner = last === null ? null : winner(last);
  return (
    <section aria-labelledby="live-title">
      <h1 id="live-title">
        Round <span data-testid="round-id">{v.roundId}</span>
      </h1>
      {v.stale && (
        <p class="warning" role="status">
          No update for a while: the round shown may not be current.
        </p>
      )}
      {streamError !== null && (
        <p class="warning" role="status">
          {streamError}
        </p>
      )}
      <div class="stats">
        <Stat label="Status" value={v.status} />
        <Stat label="Time left" value={secondsLeft === null ? '—' : countdown(secondsLeft)} />
        <Stat label="Deployed" value={<span data-testid="total-deployed">{sol(v.totalDeployed)}</span>} />
        <Stat label="Miners" value={int(v.totalMiners)} />
        <Stat label="Slot" value={int(v.slot)} hint={`updated ${when(v.updatedAt)}`} />
      </div>
      <Grid
        cells={v.deployed.map((deployed, i) => ({ deployed, miners: v.count[i] ?? 0 }))}
        highlight={lastWinner === null ? [] : [lastWinner]}
        caption={`Deployed SOL per square in round ${v.roundId}; the previous winner is outlined`}
      />
      <h2>Last winners</h2>
      <Loaded load={recent} what="recent rounds" retry={reloadRecent}>
        {(list) => (
          <div class="table-wrap">
            <table class="data" data-testid="last-winners">
              <thead>
                <tr>
                  <th scope="col">Round</th>
                  <th scope="col">Winning square</th>
                  <th scope="col">Deployed</th>
                  <th scope="col">Miners</th>
                  <th scope="col">Settled</th>
                </tr>
              </thead>
              <tbody>
                {list.rounds.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <a href={`#/history?round=${r.id}`}>{r.id}</a>
                    </td>
                    <td>{winner(r) === null ? 'voided' : `#${winner(r)}`}</td>
                    <td class="num">{sol(r.totalDeployed)}</td>
                    <td class="num">{int(r.totalMiners)}</td>
                    <td>{when(r.settledAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}
