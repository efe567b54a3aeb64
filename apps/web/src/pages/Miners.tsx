import type { TopMiners } from '@gridlab/client';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { described, Field } from '../components/Field';
import { Loaded } from '../components/Status';
import { int, ore, signedSol, sol } from '../format';
import { useLoad } from '../hooks';
import { checkAddress, minerHref, shortAddress, WINDOWS, type MinerWindowName } from '../miner-view';
import { MinerWallet } from './MinerWallet';

type MinerSort = TopMiners['sort'];

const SORTS: readonly { readonly value: MinerSort; readonly label: string }[] = [
  { value: 'net', label: 'Net SOL' },
  { value: 'ore', label: 'ORE won' },
  { value: 'deployed', label: 'SOL deployed' },
  { value: 'rounds', label: 'Rounds played' },
];
const TOP_LIMIT = 25;

/** The wallet search: a typed address is checked here before any request. */
function WalletSearch({ current }: { current: string | null }) {
  const [text, setText] = useState(current ?? '');
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: Event) => {
    event.preventDefault();
    const checked = checkAddress(text);
    if ('error' in checked) {
      setError(checked.error);
      return;
    }
    setError(undefined);
    location.hash = minerHref(checked.address);
  };
  return (
    <form class="inline-form search" onSubmit={submit} role="search" aria-label="Wallets">
      <Field id="miner-address" label="Wallet address" hint="a Solana public key (base58)" error={error}>
        <input {...described('miner-address', true, error)} value={text} spellcheck={false} autocomplete="off" onInput={(e) => setText(e.currentTarget.value)} />
      </Field>
      <button type="submit">Open wallet</button>
    </form>
  );
}

function TopMiners() {
  const [sort, setSort] = useState<MinerSort>('net');
  const [span, setSpan] = useState<MinerWindowName>('24h');
  const [top, reload] = useLoad((signal) => api.topMiners({ sort, window: span, limit: TOP_LIMIT }, { signal }), [sort, span]);
  return (
    <section aria-labelledby="top-title">
      <h2 id="top-title">Top miners</h2>
      <div class="inline-form">
        <Field id="top-sort" label="Sort by">
          <select id="top-sort" value={sort} onChange={(e) => setSort(e.currentTarget.value as MinerSort)}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </Field>
        <Field id="top-window" label="Window">
          <select id="top-window" value={span} onChange={(e) => setSpan(e.currentTarget.value as MinerWindowName)}>
            {WINDOWS.map((w) => (
              <option key={w.value} value={w.value}>
                {w.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Loaded load={top} what="the top miners" retry={reload}>
        {(t) =>
          t.miners.length === 0 ? (
            <p data-testid="top-miners-empty">No miner has played in this window yet.</p>
          ) : (
            <div class="table-wrap">
              <table class="data" data-testid="top-miners">
                <caption class="visually-hidden">
                  Top {t.miners.length} miners by {SORTS.find((s) => s.value === t.sort)?.label ?? t.sort}, {WINDOWS.find((w) => w.value === t.window)?.label ?? t.window}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Rank</th>
                    <th scope="col">Wallet</th>
                    <th scope="col" class="num">Rounds</th>
                    <th scope="col" class="num">Deployed</th>
                    <th scope="col" class="num">Net</th>
                    <th scope="col" class="num">ORE won</th>
                  </tr>
                </thead>
                <tbody>
                  {t.miners.map((m) => (
                    <tr key={m.address}>
                      <td class="num">{m.rank}</td>
                      <th scope="row">
                        <a href={minerHref(m.address)} title={m.address}>
                          <code>{shortAddress(m.address)}</code>
                        </a>
                      </th>
                      <td class="num">{int(m.rounds)}</td>
                      <td class="num">{sol(m.deployed)}</td>
                      <td class={`num ${m.net >= 0 ? 'good' : 'error'}`}>{signedSol(m.net / 1e9, 6)}</td>
                      <td class="num">{ore(m.ore, 4)} ORE</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      <p class="muted">Net: SOL back less stakes, before transaction fees. Open a wallet for its fees, ORE, ledger and P&amp;L.</p>
    </section>
  );
}

/** Every wallet's ledger: the top miners, or one wallet's summary, P&L, squares and rounds. */
export function MinersPage({ address }: { address: string | null }) {
  const checked = address === null ? null : checkAddress(address);
  return (
    <section aria-labelledby="miners-title">
      <h1 id="miners-title">Miners</h1>
      <WalletSearch key={address ?? ''} current={address} />
      {checked === null ? (
        <TopMiners />
      ) : 'error' in checked ? (
        <p class="error" role="alert">
          {checked.error} <a href="#/miners">Top miners</a>
        </p>
      ) : (
        <MinerWallet key={checked.address} address={checked.address} />
      )}
    </section>
  );
}
