/**
 * The Alerts page's form model: what the inputs hold, the request body they make (SOL
 * typed in whole units, converted exactly to the lamports the API takes), and where each
 * of the API's field errors belongs.
 */
import type { AlertCreateRequest, EventKind, FieldError, LogEvent } from '@gridlab/client';

export const RULE_KINDS = ['motherlode', 'square_ev', 'wallet', 'event', 'strategy_signal'] as const;
export const TARGET_FORMATS = ['standard', 'discord', 'slack'] as const;
export const WALLET_TRIGGERS = ['deploy', 'win', 'top_miner', 'motherlode'] as const;
export const EVENT_FILTER_OPS = ['<', '<=', '>', '>=', '==', '!='] as const;

export type RuleKind = (typeof RULE_KINDS)[number];
type TargetFormat = (typeof TARGET_FORMATS)[number];
type WalletTrigger = (typeof WALLET_TRIGGERS)[number];

/** SOL has 9 decimals: a lamport is the smallest amount. */
const SOL_DECIMALS = 9;
const DECIMAL_RE = /^\d+(?:\.(\d*))?$|^\.(\d+)$/;
const SOL_PROBLEM = 'must be an amount of SOL: digits with at most 9 decimals (0.000000001 SOL is 1 lamport)';

type FieldsOf<K extends EventKind> = Exclude<keyof Extract<LogEvent, { kind: K }>, 'id' | 'ts' | 'kind'>;

/**
 * What a filter of each event kind may compare: the event's own fields, as GET /events
 * shows them (typed from the API's schema, so a renamed field breaks this build).
 */
export const EVENT_FILTER_FIELDS: { readonly [K in EventKind]: readonly FieldsOf<K>[] } = {
  drought_broken: ['drought', 'grid', 'roundId'],
  big_round: ['deployedSol', 'multiplier', 'thresholdSol', 'totalMiners', 'winningSquare', 'roundId'],
  streak: ['length', 'grid', 'roundId'],
  motherlode: ['oreAmount', 'winningSquare', 'roundId'],
  milestone: ['metric', 'value', 'roundId'],
  tier: ['direction', 'tokenNow', 'activeSubs'],
  subscription: ['action', 'plan', 'activeSubs'],
  withdrawn: ['eventKind', 'eventId', 'roundId'],
};
export const EVENT_KINDS = Object.keys(EVENT_FILTER_FIELDS) as EventKind[];

interface FilterInput {
  field: string;
  op: string;
  value: string;
}

/** Every input as typed (strings: an empty optional input is an omitted field). */
export interface AlertFormState {
  kind: RuleKind;
  name: string;
  targetUrl: string;
  targetFormat: TargetFormat;
  /** Whole ORE, as the API takes it. */
  minOre: string;
  minEvPerSol: string;
  stakeSol: string;
  /** SOL per ORE; empty: the round's production cost. */
  orePriceSol: string;
  fromSlotsBeforeEnd: string;
  /** Square numbers separated by commas or spaces; empty: all 25. */
  squares: string;
  /** One address a line (commas and spaces separate too). */
  addresses: string;
  on: readonly WalletTrigger[];
  eventKind: EventKind;
  filters: readonly FilterInput[];
  strategyId: string;
}

export const INITIAL_ALERT_FORM: AlertFormState = {
  kind: 'motherlode',
  name: '',
  targetUrl: '',
  targetFormat: 'standard',
  minOre: '100',
  minEvPerSol: '0.05',
  stakeSol: '0.1',
  orePriceSol: '',
  fromSlotsBeforeEnd: '20',
  squares: '',
  addresses: '',
  on: ['win', 'top_miner', 'motherlode'],
  eventKind: 'drought_broken',
  filters: [],
  strategyId: '',
};

/** The inputs each kind shows (besides name and target), in order. */
export const KIND_INPUTS: Readonly<Record<RuleKind, readonly (keyof AlertFormState)[]>> = {
  motherlode: ['minOre'],
  square_ev: ['minEvPerSol', 'stakeSol', 'orePriceSol', 'fromSlotsBeforeEnd', 'squares'],
  wallet: ['addresses', 'on'],
  event: ['eventKind', 'filters'],
  strategy_signal: ['strategyId'],
};

/**
 * A decimal amount of SOL in lamports, exactly (no binary floating point on the way), or
 * null when the text is not a plain decimal or is finer than a lamport.
 */
export function solToLamports(text: string): number | null {
  const match = DECIMAL_RE.exec(text.trim());
  if (match === null) return null;
  const [whole, fraction = ''] = text.trim().split('.') as [string, string?];
  if (fraction.length > SOL_DECIMALS) return null;
  const lamports = BigInt(whole === '' ? '0' : whole) * 10n ** BigInt(SOL_DECIMALS) + BigInt(fraction.padEnd(SOL_DECIMALS, '0'));
  return lamports > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(lamports);
}

/** Lamports as a decimal amount of SOL, exactly: 1500000000 → `1.5`. */
export function lamportsToSol(lamports: number): string {
  const digits = String(lamports).padStart(SOL_DECIMALS + 1, '0');
  const fraction = digits.slice(-SOL_DECIMALS).replace(/0+$/, '');
  const whole = digits.slice(0, -SOL_DECIMALS);
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * A typed number, or the text itself when it is not one: the API then names the field
 * and what it allows (the form checks nothing the API checks).
 */
function number(text: string): number | string {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

const listOf = (text: string): string[] => text.split(/[\s,]+/).filter((t) => t !== '');

/** What the form makes: the body to send, or the problems only the form can see (an amount finer than a lamport). */
export type AlertRequest = { readonly ok: true; readonly body: AlertCreateRequest } | { readonly ok: false; readonly errors: Readonly<Record<string, string>> };

/** The create body the form describes: the chosen kind's fields only, empty optional ones omitted. */
export function toAlertBody(form: AlertFormState): AlertRequest {
  const errors: Record<string, string> = {};
  // What is typed in SOL is the form's to read: the API sees lamports and could only name those.
  const lamports = (input: 'stakeSol' | 'orePriceSol'): number | undefined => {
    const value = solToLamports(form[input]);
    if (value === null && form[input].trim() !== '') errors[input] = SOL_PROBLEM;
    return value ?? undefined;
  };
  const body: Record<string, unknown> = { kind: form.kind };
  if (form.name.trim() !== '') body['name'] = form.name.trim();
  if (form.targetUrl.trim() !== '') body['target'] = { url: form.targetUrl.trim(), format: form.targetFormat };
  switch (form.kind) {
    case 'motherlode':
      body['minOre'] = number(form.minOre);
      break;
    case 'square_ev':
      body['minEvPerSol'] = number(form.minEvPerSol);
      body['stakeLamports'] = lamports('stakeSol');
      body['orePriceLamports'] = lamports('orePriceSol');
      body['fromSlotsBeforeEnd'] = number(form.fromSlotsBeforeEnd);
      if (form.squares.trim() !== '') body['squares'] = listOf(form.squares).map(number);
      break;
    case 'wallet':
      body['addresses'] = listOf(form.addresses);
      body['on'] = WALLET_TRIGGERS.filter((t) => form.on.includes(t));
      break;
    case 'event':
      body['eventKind'] = form.eventKind;
      if (form.filters.length > 0) body['filters'] = form.filters.map((f) => ({ field: f.field, op: f.op, value: number(f.value) }));
      break;
    case 'strategy_signal':
      body['strategyId'] = form.strategyId;
      break;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // An empty optional input is a field left out, not one sent empty.
  return { ok: true, body: Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as AlertCreateRequest };
}

/** The input each body field is typed in, where it differs from the field's name. */
const FIELD_INPUT: Readonly<Record<string, keyof AlertFormState>> = {
  stakeLamports: 'stakeSol',
  orePriceLamports: 'orePriceSol',
  target: 'targetUrl',
};

/** The list inputs whose elements the API names one by one (`/addresses/2`): their errors say which. */
const LIST_INPUTS: Readonly<Record<string, string>> = { addresses: 'address', squares: 'square', on: 'choice' };

/**
 * The form key an API field error belongs to: `/stakeLamports` → `stakeSol`,
 * `/target/url` → `targetUrl`, `/filters/0/value` → `filters/0/value`, `/addresses/2` →
 * `addresses`; a field the form does not show, or the body itself, → `form`.
 */
export function alertFieldOf(path: string): string {
  const [head = '', ...rest] = path.replace(/^\//, '').split('/');
  if (head === 'target') return rest[0] === 'format' ? 'targetFormat' : 'targetUrl';
  if (head === 'filters') {
    if (rest.length >= 2 && ['field', 'op', 'value'].includes(rest[1]!)) return `filters/${rest[0]}/${rest[1]}`;
    return rest.length >= 1 ? `filters/${rest[0]}/field` : 'filters';
  }
  if (FIELD_INPUT[head] !== undefined) return FIELD_INPUT[head];
  const known = Object.keys(INITIAL_ALERT_FORM);
  return known.includes(head) ? head : 'form';
}

/**
 * The API's problems by form key, several at one input joined; an element of a list says
 * which (`address 2 must be …`), and a problem with a field the form does not show keeps its path.
 */
export function alertFieldErrors(errors: readonly FieldError[]): Record<string, string> {
  const byField: Record<string, string[]> = {};
  for (const e of errors) {
    const field = alertFieldOf(e.path);
    const [head = '', index] = e.path.replace(/^\//, '').split('/');
    let message = e.message;
    if (LIST_INPUTS[head] !== undefined && index !== undefined && /^\d+$/.test(index)) message = `${LIST_INPUTS[head]} ${Number(index) + 1} ${e.message}`;
    else if (field === 'form' && e.path !== '' && e.path !== '/') message = `${e.path}: ${e.message}`;
    (byField[field] ??= []).push(message);
  }
  return Object.fromEntries(Object.entries(byField).map(([field, messages]) => [field, messages.join('; ')]));
}
