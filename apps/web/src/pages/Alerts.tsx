import type { AlertDeliveries, AlertList, AlertStreamFiring, AlertTest } from '@gridlab/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { lamportsToSol } from '../alert-form';
import { api, describe } from '../api';
import { AlertRuleForm, KIND_LABELS } from '../components/AlertRuleForm';
import { ErrorBox, Loaded } from '../components/Status';
import { when } from '../format';
import { useActions, useLoad } from '../hooks';

type Alert = AlertList['alerts'][number];
type Firing = AlertDeliveries['firings'][number];

/** A signing secret just issued: shown this once. */
interface ShownSecret {
  readonly rule: string;
  readonly secret: string;
  /** After a rotation: until when the previous secrets sign beside it. */
  readonly previousRetiresAt?: string;
}

/** Firings listed at first (a rule can fire every round); the rest on request. */
const FIRINGS_SHOWN = 20;
/** Firings kept in the live list, newest first. */
const LIVE_SHOWN = 50;
/** An answer's excerpt is up to 1 KiB: the table shows its start, the title all of it. */
const EXCERPT_SHOWN = 80;

const titleOf = (a: Alert): string => a.name ?? KIND_LABELS[a.kind];

/** What a rule watches, in a line. */
function ruleSummary(a: Alert): string {
  switch (a.kind) {
    case 'motherlode':
      return `the motherlode pool reaches ${a.minOre ?? '?'} ORE`;
    case 'square_ev': {
      const price = a.orePriceLamports === null || a.orePriceLamports === undefined ? "ORE at the round's production cost" : `ORE at ${lamportsToSol(a.orePriceLamports)} SOL`;
      const squares = a.squares === null || a.squares === undefined ? 'any square' : `square ${a.squares.join(', ')}`;
      return `${squares} at ${a.minEvPerSol ?? '?'} EV per SOL or more for ${lamportsToSol(a.stakeLamports ?? 0)} SOL, ${price}, from ${a.fromSlotsBeforeEnd ?? '?'} slots before the end`;
    }
    case 'wallet': {
      const addresses = a.addresses ?? [];
      const first = addresses[0] === undefined ? '' : `${addresses[0].slice(0, 4)}…${addresses[0].slice(-4)}`;
      return `${addresses.length === 1 ? `wallet ${first}` : `${addresses.length} wallets (${first}, …)`} on ${(a.on ?? []).join(', ').replace(/_/g, ' ')}`;
    }
    case 'event': {
      const filters = (a.filters ?? []).map((f) => `${f.field} ${f.op} ${String(f.value)}`).join(' and ');
      return `${(a.eventKind ?? '').replace(/_/g, ' ')} events${filters === '' ? '' : ` where ${filters}`}`;
    }
    case 'strategy_signal':
      return `the decisions of strategy ${a.strategyId ?? '?'}`;
  }
}

function Badge({ alert }: { alert: Alert }) {
  if (alert.enabled) return <span class="badge badge-on">enabled</span>;
  if (alert.disabledReason === 'endpoint_failing') return <span class="badge badge-off">disabled: endpoint failing</span>;
  return <span class="badge">disabled</span>;
}

function SecretBox({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState(false);
  // Where the reader's attention must go: moved there, and announced.
  useEffect(() => box.current?.focus(), [shown]);
  return (
    <div class="issued" role="status" tabIndex={-1} ref={box} data-testid="alert-secret">
      <p>
        <strong>Signing secret of “{shown.rule}”, shown once:</strong> it will not be shown again. Store it where your receiver verifies the webhook-signature header (Standard Webhooks).
      </p>
      <code class="key">{shown.secret}</code>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(shown.secret).then(() => setCopied(true))}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
      {shown.previousRetiresAt !== undefined && <p class="muted">The previous secret keeps signing beside it until {when(shown.previousRetiresAt)}.</p>}
    </div>
  );
}

function TestOutcome({ outcome }: { outcome: AlertTest }) {
  return (
    <div role="status" data-testid="test-outcome" class={outcome.delivered ? 'outcome' : 'outcome outcome-failed'}>
      <p>
        <strong>{outcome.delivered ? 'Test delivered' : 'Test not delivered'}</strong>: {outcome.status === null ? 'no answer' : `HTTP ${outcome.status}`} in {outcome.latencyMs} ms · webhook id{' '}
        <code>{outcome.webhookId}</code>
      </p>
      {outcome.error !== null && <p class="error">{outcome.error}</p>}
      {outcome.excerpt !== '' && <pre class="message">{outcome.excerpt}</pre>}
    </div>
  );
}

function FiringItem({ firing, ruleId, canRedeliver }: { firing: Firing; ruleId: string; canRedeliver: boolean }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<unknown>(null);
  const redeliver = async () => {
    setBusy(true);
    try {
      await api.redeliverAlert(ruleId, firing.id, { retry: false });
      setResult('queued');
    } catch (error) {
      setResult(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li data-testid="firing" data-webhook-id={firing.webhookId}>
      <div class="firing-head">
        <span>{when(firing.firedAt)}</span> <strong>{firing.payload.type}</strong> <code>{firing.webhookId}</code>{' '}
        <span class={firing.state === 'delivered' ? 'badge badge-on' : firing.state === 'expired' ? 'badge badge-off' : 'badge'}>{firing.state ?? 'no webhook'}</span>
        {canRedeliver && (
          <button type="button" class="secondary" disabled={busy} onClick={() => void redeliver()}>
            Redeliver <span class="visually-hidden">the firing of {when(firing.firedAt)}</span>
          </button>
        )}
      </div>
      {result === 'queued' && (
        <p class="good" role="status">
          Queued again under the same webhook id.
        </p>
      )}
      {result !== null && result !== 'queued' && <ErrorBox error={result} />}
      {firing.attempts.length > 0 && (
        // Scrolls sideways on a narrow screen: focusable, so a keyboard can scroll it too.
        <div class="table-wrap" tabIndex={0} role="region" aria-label={`Delivery attempts of the firing of ${when(firing.firedAt)}`}>
          <table class="data">
            <caption class="visually-hidden">Delivery attempts of the firing of {when(firing.firedAt)}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">At</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Latency
                </th>
                <th scope="col">Answer or error</th>
              </tr>
            </thead>
            <tbody>
              {firing.attempts.map((a) => {
                const text = a.error ?? a.excerpt;
                return (
                  <tr key={a.attempt}>
                    <th scope="row">#{a.attempt}</th>
                    <td>{when(a.at)}</td>
                    <td>{a.status ?? 'none'}</td>
                    <td class="num">{a.latencyMs} ms</td>
                    <td title={text} class={a.error === null ? undefined : 'error'}>
                      {text.length > EXCERPT_SHOWN ? `${text.slice(0, EXCERPT_SHOWN)}…` : text === '' ? '(empty)' : text}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}

/** A rule's firings, newest first, each with its attempts. */
function Deliveries({ alert }: { alert: Alert }) {
  const [load, reload] = useLoad((signal) => api.alertDeliveries(alert.id, { signal }), [alert.id]);
  const [all, setAll] = useState(false);
  return (
    <section class="deliveries" aria-label={`Deliveries of ${titleOf(alert)}`} data-testid="alert-deliveries">
      <div class="actions">
        <h3>Deliveries</h3>
        <button type="button" class="secondary" onClick={reload}>
          Refresh <span class="visually-hidden">the deliveries of {titleOf(alert)}</span>
        </button>
      </div>
      <Loaded load={load} what="the deliveries" retry={reload}>
        {(d) =>
          d.count === 0 ? (
            <p class="muted">No firing yet.</p>
          ) : (
            <>
              <ul class="feed">
                {(all ? d.firings : d.firings.slice(0, FIRINGS_SHOWN)).map((f) => (
                  <FiringItem key={f.id} firing={f} ruleId={alert.id} canRedeliver={alert.target !== null} />
                ))}
              </ul>
              {!all && d.count > FIRINGS_SHOWN && (
                <button type="button" class="secondary" onClick={() => setAll(true)}>
                  Show all {d.count} firings
                </button>
              )}
            </>
          )
        }
      </Loaded>
    </section>
  );
}

function RuleCard({ alert, busy, act, onSecret }: { alert: Alert; busy: boolean; act: (call: () => Promise<unknown>) => Promise<void>; onSecret: (s: ShownSecret) => void }) {
  const [outcome, setOutcome] = useState<AlertTest | null>(null);
  const [open, setOpen] = useState(false);
  const title = titleOf(alert);
  const failing = alert.disabledReason === 'endpoint_failing';
  return (
    <li class={failing ? 'card card-failing' : 'card'} data-alert={alert.id}>
      <h2>
        {title} <Badge alert={alert} />
      </h2>
      <p class="muted">
        {KIND_LABELS[alert.kind]}: {ruleSummary(alert)} · created {when(alert.createdAt)}
      </p>
      <p class="muted">
        {alert.target === null ? (
          'No webhook: its firings are listed here and on the alert stream.'
        ) : (
          <>
            Posts to <code>{alert.target.url}</code> ({alert.target.format ?? 'standard'})
          </>
        )}
      </p>
      {failing && (
        <p class="warning" data-testid="endpoint-failing">
          Gridlab disabled this rule: its endpoint failed every delivery for 24 hours{alert.failingSince === null ? '' : ` (since ${when(alert.failingSince)})`}. Fix the endpoint, send a test, then enable the rule
          again.
        </p>
      )}
      {!failing && alert.enabled && alert.failingSince !== null && (
        <p class="warning">Its endpoint has failed every delivery since {when(alert.failingSince)}; after 24 hours of failures the rule is disabled.</p>
      )}
      <div class="actions">
        <button type="button" class={failing ? undefined : 'secondary'} disabled={busy} onClick={() => void act(() => api.updateAlert(alert.id, { enabled: !alert.enabled }))}>
          {alert.enabled ? 'Disable' : 'Enable'} <span class="visually-hidden">{title}</span>
        </button>
        {alert.target !== null && (
          <button type="button" class="secondary" disabled={busy} onClick={() => void act(async () => setOutcome(await api.testAlert(alert.id, { retry: false })))}>
            Send a test <span class="visually-hidden">to {title}</span>
          </button>
        )}
        <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          Deliveries <span class="visually-hidden">of {title}</span>
        </button>
        {alert.target !== null && (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => {
              if (confirm(`Rotate the signing secret of “${title}”? The new one is shown once; the previous one keeps signing beside it for 24 hours.`)) {
                void act(async () => {
                  const rotated = await api.rotateAlertSecret(alert.id, { retry: false });
                  onSecret({ rule: title, secret: rotated.secret, previousRetiresAt: rotated.previousRetiresAt });
                });
              }
            }}
          >
            Rotate secret <span class="visually-hidden">of {title}</span>
          </button>
        )}
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => {
            if (confirm(`Delete the alert rule “${title}” with its delivery log?`)) void act(() => api.deleteAlert(alert.id));
          }}
        >
          Delete <span class="visually-hidden">{title}</span>
        </button>
      </div>
      {outcome !== null && <TestOutcome outcome={outcome} />}
      {open && <Deliveries alert={alert} />}
    </li>
  );
}

/** The caller's alert rules: create (the secret shown once), test, deliveries, enable, disable, rotate, delete. */
/**
 * Every rule's firings as the notifier stores them (GET /alerts/stream), newest first:
 * what a webhook receives, for rules with one and without. Only new firings: the
 * deliveries of each rule list the earlier ones.
 */
function LiveFirings({ titles }: { titles: ReadonlyMap<string, string> }) {
  const [firings, setFirings] = useState<readonly AlertStreamFiring[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const firing of api.alertStream({ signal: abort.signal, onReconnect: () => setStatus('reconnecting to your alert stream…') })) {
          setStatus(null);
          setFirings((list) => [firing, ...list].slice(0, LIVE_SHOWN));
        }
      } catch (e) {
        if (!abort.signal.aborted) setStatus(describe(e));
      }
    })();
    return () => abort.abort();
  }, []);
  return (
    <section aria-labelledby="live-firings-title">
      <h2 id="live-firings-title">As they fire</h2>
      {status !== null && (
        <p class="warning" role="status">
          {status}
        </p>
      )}
      {firings.length === 0 ? (
        <p class="muted">Your rules' firings appear here as they happen, with or without a webhook.</p>
      ) : (
        <ol class="feed" data-testid="live-firings" aria-live="polite">
          {firings.map((f) => (
            <li key={f.id} data-webhook-id={f.webhookId}>
              <span class="badge">{f.payload.type}</span> {titles.get(f.ruleId) ?? f.ruleId}
              {f.payload.roundId === null ? '' : `, round ${f.payload.roundId}`}{' '}
              <time class="muted" dateTime={f.firedAt}>
                {when(f.firedAt)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function AlertsPage() {
  const [list, reload] = useLoad((signal) => api.alerts({ signal }), []);
  const { busy, failure, act } = useActions(reload);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const failing = list.state === 'ok' ? list.value.alerts.filter((a) => a.disabledReason === 'endpoint_failing').length : 0;
  return (
    <section aria-labelledby="alerts-title">
      <h1 id="alerts-title">Alerts</h1>
      <p class="muted">Rules that watch the game for you. A rule with a webhook posts each firing there, signed; every firing is listed with its delivery attempts.</p>
      {failing > 0 && (
        <p class="warning" role="status">
          {failing === 1 ? 'One rule was' : `${failing} rules were`} disabled because the endpoint failed every delivery for 24 hours: see below.
        </p>
      )}
      {secret !== null && <SecretBox shown={secret} onDone={() => setSecret(null)} />}
      {created !== null && (
        <p class="good" role="status">
          {created}
        </p>
      )}
      {failure !== null && <ErrorBox error={failure} />}
      <Loaded load={list} what="your alert rules" retry={reload}>
        {(l) =>
          l.count === 0 ? (
            <p class="muted">No alert rule yet: create one below.</p>
          ) : (
            <ul class="cards" data-testid="alert-list">
              {l.alerts.map((a) => (
                <RuleCard key={a.id} alert={a} busy={busy === a.id} act={(call) => act(a.id, call)} onSecret={setSecret} />
              ))}
            </ul>
          )
        }
      </Loaded>
      <LiveFirings titles={new Map(list.state === 'ok' ? list.value.alerts.map((a) => [a.id, titleOf(a)]) : [])} />
      <h2>New rule</h2>
      <AlertRuleForm
        onCreated={(c) => {
          const title = titleOf(c.alert);
          setSecret(c.secret === null ? null : { rule: title, secret: c.secret });
          setCreated(c.secret === null ? `Created “${title}”: without a webhook, its firings are listed under its deliveries.` : null);
          reload();
        }}
      />
    </section>
  );
}
