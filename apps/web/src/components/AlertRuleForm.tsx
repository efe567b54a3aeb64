import type { AlertCreated, EventKind } from '@gridlab/client';
import { isGridlabApiError } from '@gridlab/client';
import { useEffect, useState } from 'preact/hooks';
import {
  alertFieldErrors,
  EVENT_FILTER_FIELDS,
  EVENT_FILTER_OPS,
  EVENT_KINDS,
  INITIAL_ALERT_FORM,
  KIND_INPUTS,
  RULE_KINDS,
  TARGET_FORMATS,
  toAlertBody,
  WALLET_TRIGGERS,
  type AlertFormState,
  type RuleKind,
} from '../alert-form';
import { api } from '../api';
import { useLoad } from '../hooks';
import { described, Field } from './Field';
import { ErrorBox, Loaded } from './Status';

type Errors = Readonly<Record<string, string>>;
type TextInput = 'name' | 'targetUrl' | 'minOre' | 'minEvPerSol' | 'stakeSol' | 'orePriceSol' | 'fromSlotsBeforeEnd' | 'squares';

export const KIND_LABELS: Readonly<Record<RuleKind, string>> = {
  motherlode: 'Motherlode pool',
  square_ev: 'Square EV',
  wallet: 'Wallet activity',
  event: 'Event',
  strategy_signal: 'Strategy signal',
};
const KIND_HINTS: Readonly<Record<RuleKind, string>> = {
  motherlode: 'fires once each time the motherlode pool climbs to the amount',
  square_ev: 'fires once a round when a square is expected to return at least the bar for your stake',
  wallet: 'fires when a watched wallet deploys, wins, is the top miner or shares the motherlode',
  event: 'fires on each event of the kind (as on the Events page) that passes the filters',
  strategy_signal: "fires with one of your strategies' decision for the next round",
};
const FORMAT_LABELS: Readonly<Record<(typeof TARGET_FORMATS)[number], string>> = {
  standard: 'Standard (signed JSON)',
  discord: 'Discord message',
  slack: 'Slack message',
};
const LABELS: Readonly<Record<TextInput, [string, string]>> = {
  name: ['Name', 'optional, up to 100 characters'],
  targetUrl: ['Webhook URL', 'https on port 443, at a public address; empty: no webhook, read its firings here'],
  minOre: ['Pool at least (ORE)', 'whole ORE, more than 0'],
  minEvPerSol: ['EV per SOL at least', '0.05: a square expected to bring back 5% more than the stake; above −1'],
  stakeSol: ['Your stake per square (SOL)', 'what the EV is figured for'],
  orePriceSol: ['ORE price (SOL per ORE)', "empty: the round's production cost"],
  fromSlotsBeforeEnd: ['From slots before the end', '1 to 200: checked only this close to the end'],
  squares: ['Squares', 'numbers 0 to 24, separated by commas; empty: all 25'],
};

function Input({ name, form, set, errors, type = 'text' }: { name: TextInput; form: AlertFormState; set: (f: AlertFormState) => void; errors: Errors; type?: string }) {
  const [label, hint] = LABELS[name];
  const id = `alert-${name}`;
  return (
    <Field id={id} label={label} hint={hint} error={errors[name]}>
      <input
        {...described(id, true, errors[name])}
        name={name}
        type={type}
        {...(type === 'text' && name !== 'name' && name !== 'squares' ? { inputMode: 'decimal' } : {})}
        value={form[name]}
        onInput={(e) => set({ ...form, [name]: (e.target as HTMLInputElement).value })}
      />
    </Field>
  );
}

function Select<T extends string>({ id, label, options, labels, value, onChange, error, hint }: {
  id: string;
  label: string;
  options: readonly T[];
  labels?: Readonly<Record<T, string>>;
  value: T;
  onChange: (v: T) => void;
  error?: string | undefined;
  hint?: string;
}) {
  return (
    <Field id={id} label={label} {...(hint === undefined ? {} : { hint })} error={error}>
      <select {...described(id, hint !== undefined, error)} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value as T)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {labels?.[o] ?? o.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The caller's strategies to pick from (the first is picked when none is yet). */
function StrategyInput({ form, set, error }: { form: AlertFormState; set: (f: AlertFormState) => void; error: string | undefined }) {
  const [list, reload] = useLoad((signal) => api.listStrategies({ signal }), []);
  const first = list.state === 'ok' ? list.value.strategies[0]?.id : undefined;
  useEffect(() => {
    if (form.strategyId === '' && first !== undefined) set({ ...form, strategyId: first });
  }, [first]);
  return (
    <Loaded load={list} what="your strategies" retry={reload}>
      {(l) =>
        l.count === 0 ? (
          <p class="muted wide">
            No strategy yet: save one in the <a href="#/lab">Strategy Lab</a> first.
            {error !== undefined && (
              <small class="field-error" role="alert">
                {' '}
                {error}
              </small>
            )}
          </p>
        ) : (
          <Select
            id="alert-strategyId"
            label="Strategy"
            options={l.strategies.map((s) => s.id)}
            labels={Object.fromEntries(l.strategies.map((s) => [s.id, s.name]))}
            value={form.strategyId}
            onChange={(strategyId) => set({ ...form, strategyId })}
            error={error}
          />
        )
      }
    </Loaded>
  );
}

/** The inputs of the chosen kind. */
function KindInputs({ form, set, errors }: { form: AlertFormState; set: (f: AlertFormState) => void; errors: Errors }) {
  const common = { form, set, errors };
  const setFilter = (i: number, key: 'field' | 'op' | 'value', value: string) => set({ ...form, filters: form.filters.map((f, j) => (j === i ? { ...f, [key]: value } : f)) });
  switch (form.kind) {
    case 'motherlode':
    case 'square_ev':
      return (
        <>
          {KIND_INPUTS[form.kind].map((name) => (
            <Input key={name} name={name as TextInput} {...common} />
          ))}
        </>
      );
    case 'wallet':
      return (
        <>
          <Field id="alert-addresses" label="Wallet addresses" hint="base58 public keys, one a line; up to 50" error={errors['addresses']}>
            <textarea {...described('alert-addresses', true, errors['addresses'])} rows={3} spellcheck={false} value={form.addresses} onInput={(e) => set({ ...form, addresses: (e.target as HTMLTextAreaElement).value })} />
          </Field>
          <div class={errors['on'] === undefined ? 'field' : 'field invalid'} data-field="alert-on">
            <fieldset class="choices" {...(errors['on'] === undefined ? {} : { 'aria-describedby': 'alert-on-error' })}>
              <legend>Tell me when a wallet</legend>
              {WALLET_TRIGGERS.map((t) => (
                <label key={t} class="check">
                  <input
                    type="checkbox"
                    checked={form.on.includes(t)}
                    onChange={(e) => set({ ...form, on: (e.target as HTMLInputElement).checked ? [...form.on, t] : form.on.filter((o) => o !== t) })}
                  />
                  {t === 'top_miner' ? 'is the top miner' : t === 'motherlode' ? 'shares the motherlode' : t === 'win' ? 'wins' : 'deploys'}
                </label>
              ))}
            </fieldset>
            {errors['on'] !== undefined && (
              <small id="alert-on-error" class="field-error" role="alert" data-testid="error-alert-on">
                {errors['on']}
              </small>
            )}
          </div>
        </>
      );
    case 'event':
      return (
        <>
          <Select<EventKind> id="alert-eventKind" label="Event" options={EVENT_KINDS} value={form.eventKind} onChange={(eventKind) => set({ ...form, eventKind, filters: [] })} error={errors['eventKind']} />
          {form.filters.map((f, i) => (
            <div class="filter-row" key={i}>
              <Select id={`alert-filters-${i}-field`} label={`Filter ${i + 1}: field`} options={EVENT_FILTER_FIELDS[form.eventKind] as readonly string[]} value={f.field} onChange={(v) => setFilter(i, 'field', v)} error={errors[`filters/${i}/field`]} />
              <Select id={`alert-filters-${i}-op`} label="Comparison" options={EVENT_FILTER_OPS} value={f.op as (typeof EVENT_FILTER_OPS)[number]} onChange={(v) => setFilter(i, 'op', v)} error={errors[`filters/${i}/op`]} />
              <Field id={`alert-filters-${i}-value`} label="Value" error={errors[`filters/${i}/value`]}>
                <input {...described(`alert-filters-${i}-value`, false, errors[`filters/${i}/value`])} value={f.value} onInput={(e) => setFilter(i, 'value', (e.target as HTMLInputElement).value)} />
              </Field>
              <button type="button" class="secondary" onClick={() => set({ ...form, filters: form.filters.filter((_, j) => j !== i) })}>
                Remove filter {i + 1}
              </button>
            </div>
          ))}
          {errors['filters'] !== undefined && (
            <p class="field-error wide" role="alert">
              {errors['filters']}
            </p>
          )}
          <div class="wide">
            <button type="button" class="secondary" onClick={() => set({ ...form, filters: [...form.filters, { field: EVENT_FILTER_FIELDS[form.eventKind][0] ?? '', op: '>=', value: '0' }] })}>
              Add a filter
            </button>
          </div>
        </>
      );
    case 'strategy_signal':
      return <StrategyInput form={form} set={set} error={errors['strategyId']} />;
  }
}

/** A new rule: its kind's fields, an optional webhook target; the API's problems at their inputs. */
export function AlertRuleForm({ onCreated }: { onCreated: (created: AlertCreated) => void }) {
  const [form, setForm] = useState<AlertFormState>(INITIAL_ALERT_FORM);
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setErrors({});
    setFailure(null);
    const request = toAlertBody(form);
    if (!request.ok) {
      setErrors(request.errors);
      return;
    }
    setBusy(true);
    try {
      const created = await api.createAlert(request.body, { retry: false });
      // The next rule starts from the same kind and target: several rules often share both.
      setForm({ ...INITIAL_ALERT_FORM, kind: form.kind, targetUrl: form.targetUrl, targetFormat: form.targetFormat });
      onCreated(created);
    } catch (error) {
      if (isGridlabApiError(error) && error.errors.length > 0) setErrors(alertFieldErrors(error.errors));
      else setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  const common = { form, set: setForm, errors };
  return (
    <form
      class="alert-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <fieldset>
        <legend>Rule</legend>
        <Select id="alert-kind" label="Kind" options={RULE_KINDS} labels={KIND_LABELS} value={form.kind} hint={KIND_HINTS[form.kind]} onChange={(kind) => setForm({ ...form, kind })} error={errors['kind']} />
        <Input name="name" {...common} />
      </fieldset>
      <fieldset>
        <legend>When it fires</legend>
        <KindInputs {...common} />
      </fieldset>
      <fieldset>
        <legend>Webhook (optional)</legend>
        <Input name="targetUrl" type="url" {...common} />
        <Select id="alert-targetFormat" label="Format" options={TARGET_FORMATS} labels={FORMAT_LABELS} value={form.targetFormat} onChange={(targetFormat) => setForm({ ...form, targetFormat })} error={errors['targetFormat']} />
      </fieldset>
      {errors['form'] !== undefined && (
        <p class="field-error" role="alert" data-testid="error-alert-form">
          {errors['form']}
        </p>
      )}
      {failure !== null && <ErrorBox error={failure} />}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create rule'}
        </button>
      </div>
    </form>
  );
}
