import type { LiveEv, LiveView, Round } from '@gridlab/client';
import { useEffect, useState } from 'preact/hooks';
import { api, describe } from '../api';
import { described, Field } from '../components/Field';
import { Grid, type GridMetric } from '../components/Grid';
import { Loaded, Loading, Stat } from '../components/Status';
import { countdown, int, LAMPORTS_PER_SOL, ore, sol, when } from '../format';
import { useLoad, useNow } from '../hooks';

type Metric = 'sol' | 'miners' | 'ev';

const METRICS: { readonly value: Metric; readonly label: string }[] = [
  { value: 'sol', label: 'SOL deployed' },
  { value: 'miners', label: 'Miners' },
  { value: 'ev', label: 'EV per SOL' },
];
/** How often, at most, the EV of the typed stake follows the board (and at least, while the page is open). */
const EV_REFRESH_MS = 2000;

/** `+0.0123` / `−0.0456`: an EV per SOL staked. */
function signed(x: number): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(4)}`;
}

/** A typed SOL amount as lamports; null while it is not one (empty, negative, or 0 when `positive`). */
function lamports(text: string, positive = true): number | null {
  if (!/^\d+(\.\d+)?$/.test(text.trim())) return null;
  const value = Math.round(Number(text) * LAMPORTS_PER_SOL);
  return (positive ? value > 0 : value >= 0) && Number.isSafeInteger(value) ? value : null;
}

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
    void (async () => {
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
  const [metric, setMetric] = useState<Metric>('sol');
  const [stakeText, setStakeText] = useState('0.1');
  const [priceText, setPriceText] = useState('');
  const stake = lamports(stakeText);
  const price = priceText.trim() === '' ? undefined : lamports(priceText, false);
  const priceValid = price !== null;
  const stakeError = stake === null ? 'a positive amount of SOL, like 0.1' : undefined;
  const priceError = priceValid ? undefined : 'an amount of SOL, or empty';
  const [ev] = useLoad<LiveEv | null>(
    (signal) =>
      stake === null || !priceValid ? Promise.resolve(null) : api.liveEv({ stakeLamports: stake, ...(price === undefined ? {} : { orePriceLamports: price }) }, { signal }),
    // Again when the board changes (at most once per EV_REFRESH_MS of updates: /live/ev counts
    // against the key's rate limit), and every EV_REFRESH_MS in any case.
    [stake, price, live?.view.roundId, live === null ? 0 : Math.floor(live.at / EV_REFRESH_MS)],
    EV_REFRESH_MS,
  );

  if (live === null) return streamError === null ? <Loading what="the live round" /> : <p class="error" role="alert">{streamError}</p>;
  const v = live.view;
  const secondsLeft = v.secondsLeft === null ? null : Math.max(0, v.secondsLeft - (now - live.at) / 1000);
  const last = v.prevRound;
  const lastWinner = last === null ? null : winner(last);
  const game = v.game;
  const evNow = ev.state === 'ok' ? ev.value : null;
  const cells = v.deployed.map((deployed, i) => ({ deployed, miners: v.count[i] ?? 0 }));
  const gridMetric: GridMetric | undefined =
    metric === 'miners'
      ? { values: v.count, format: (n) => `${int(n)} miners` }
      : metric === 'ev' && evNow !== null
        ? { values: evNow.squares.map((s) => s.evPerSol), format: signed }
        : undefined;
  const shownValues = gridMetric?.values ?? v.deployed;
  // EV not in yet: the board stays on SOL until it is.
  const shown: Metric = metric === 'ev' && gridMetric === undefined ? 'sol' : metric;
  const legendUnit = shown === 'sol' ? (x: number) => sol(x, 3) : shown === 'miners' ? (x: number) => `${int(x)} miners` : (x: number) => `${signed(x)} SOL per SOL`;
  const marks = game?.splitSquares?.map((split) => (split ? 'split' : 'solo')) ?? undefined;
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
      {game !== undefined && (
        <div class="stats" data-testid="game">
          <Stat label="Payout rule" value={game.payoutRule} />
          <Stat label="Motherlode pool" value={game.motherlodePool === null ? '—' : `${ore(game.motherlodePool)} ORE`} hint="paid pro rata on the winning square one round in 500" />
          <Stat label="Production cost" value={game.productionCost === null ? '—' : `${sol(game.productionCost)} per ORE`} hint="SOL lost for each ORE produced, over 20 rounds" />
          <Stat label="Prize" value={`${ore(game.oreReward, 11)} ORE`} hint="to the winning square: split pro rata, or to one top miner drawn by stake" />
        </div>
      )}
      <fieldset class="metric-toggle">
        <legend>Colour the board by</legend>
        {METRICS.map((m) => (
          <label key={m.value} class="radio">
            <input type="radio" name="metric" value={m.value} checked={metric === m.value} onChange={() => setMetric(m.value)} data-testid={`metric-${m.value}`} />
            {m.label}
          </label>
        ))}
      </fieldset>
      <Grid
        cells={cells}
        highlight={lastWinner === null ? [] : [lastWinner]}
        caption={`${METRICS.find((m) => m.value === shown)!.label} per square in round ${v.roundId}; the previous winner is outlined${marks === undefined ? '' : '; split: the prize is shared pro rata if the square wins, solo: one top miner takes it'}`}
        {...(gridMetric === undefined ? {} : { metric: gridMetric })}
        {...(marks === undefined ? {} : { marks })}
      />
      <p class="legend muted" data-testid="legend">
        <span class="legend-scale" aria-hidden="true" /> {legendUnit(Math.min(...shownValues))} (pale) to {legendUnit(Math.max(...shownValues))} (deep)
        {metric === 'ev' && evNow !== null && <> · stake {sol(evNow.stakeLamports)}, ORE at {sol(evNow.orePriceLamports)} ({evNow.orePriceSource === 'caller' ? 'your price' : evNow.orePriceSource === 'productionCost' ? 'the production cost' : 'no price'})</>}
        {marks !== undefined && <> · split: the prize is shared pro rata if the square wins; solo: one top miner, drawn by stake, takes it</>}
      </p>
      <section aria-labelledby="best-title" class="narrow">
        <h2 id="best-title">Best squares now</h2>
        <form onSubmit={(e) => e.preventDefault()} class="inline-form">
          <Field id="ev-stake" label="Your stake (SOL a square)" hint="added now to each square in turn" error={stakeError}>
            <input {...described('ev-stake', true, stakeError)} inputMode="decimal" value={stakeText} onInput={(e) => setStakeText(e.currentTarget.value)} />
          </Field>
          <Field id="ev-price" label="ORE price (SOL per ORE)" hint={`empty: the production cost${game?.productionCost == null ? '' : `, ${sol(game.productionCost)}`}`} error={priceError}>
            <input {...described('ev-price', true, priceError)} inputMode="decimal" value={priceText} placeholder={game?.productionCost == null ? '' : String(game.productionCost / LAMPORTS_PER_SOL)} onInput={(e) => setPriceText(e.currentTarget.value)} />
          </Field>
        </form>
        {ev.state === 'error' && <p class="error" role="alert">{describe(ev.error)}</p>}
        {evNow !== null && (
          <ol class="best" data-testid="best-squares">
            {evNow.best.map((square) => {
              const s = evNow.squares[square]!;
              return (
                <li key={square}>
                  Square #{square}: {signed(s.evPerSol)} SOL per SOL ({s.evLamports >= 0 ? '+' : '−'}
                  {sol(Math.abs(s.evLamports))} expected, {ore(s.expectedOre, 5)} ORE)
                  {s.split === null ? '' : s.split ? ', split' : ', solo'}
                </li>
              );
            })}
          </ol>
        )}
        <p class="muted">
          Each square wins once in 25. Under the {game?.payoutRule ?? 'round\'s'} rule the SOL side loses about the same on every square; what differs is the ORE: the prize, and the
          motherlode pool one round in 500, go to the winning square's miners in proportion to stake, so a square with little SOL on it pays more ORE per SOL. Deploys made after
          now are not counted.
        </p>
      </section>
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
                    <td class="num">{r.totalMiners === null ? 'unknown' : int(r.totalMiners)}</td>
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
