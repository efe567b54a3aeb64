/**
 * Alert rules: what a subscriber asks to be told, and the checks a body must pass to
 * become one. A parser never throws; it returns the rule or every problem it found, each
 * with the JSON pointer of the field and what that field allows, so one 400 answer tells
 * the caller everything to fix.
 */
import { decodeBase58 } from '@gridlab/chain';
import { EVENT_KINDS, ORE_BASE_UNITS, STRATEGY_ID_RE, type EventKind } from '@gridlab/contracts';
import type { FieldError } from '@gridlab/errors';
import { eventFilterProblems, type EventFilter } from './event-filters';

/** The five kinds of rule. */
const RULE_KINDS = ['motherlode', 'square_ev', 'wallet', 'event', 'strategy_signal'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** How a firing is posted: the payload itself, or a Discord or Slack incoming-webhook message. */
const TARGET_FORMATS = ['standard', 'discord', 'slack'] as const;
export type TargetFormat = (typeof TARGET_FORMATS)[number];

/** What a watched wallet can do that a wallet rule reports. */
const WALLET_TRIGGERS = ['deploy', 'win', 'top_miner', 'motherlode'] as const;
export type WalletTrigger = (typeof WALLET_TRIGGERS)[number];

const SQUARES = 25;
const MAX_NAME = 100;
/** The longest target URL: what @gridlab/webhooks' checkTarget accepts. */
const MAX_URL = 2048;
/** A stake above a million SOL is a typo, and keeps every EV figure a safe integer. */
const MAX_STAKE_LAMPORTS = 1e15;
const MAX_ORE_PRICE_LAMPORTS = 1e15;
/** The pool is a safe integer of base units (about 90,071 ORE); a higher bar could never be reached. */
const MAX_MIN_ORE = Math.floor(Number.MAX_SAFE_INTEGER / ORE_BASE_UNITS);
const MAX_SLOTS_BEFORE_END = 200;
/** EV per SOL cannot fall below -1 (the whole stake lost); past 1000 no square ever gets there. */
const MIN_EV_PER_SOL = -1;
const MAX_EV_PER_SOL = 1000;

/** The operator's bounds on rules. */
export interface RuleLimits {
  /** Rules one API key may own. */
  readonly rulesPerKey: number;
  /** Addresses one wallet rule may watch. */
  readonly addressesPerRule: number;
}

const DEFAULT_RULE_LIMITS: RuleLimits = { rulesPerKey: 20, addressesPerRule: 50 };

/** Where firings are posted. A rule without one is followed over server-sent events only. */
interface Target {
  /** Checked here for its form only; the app runs @gridlab/webhooks' checkTarget and resolveTarget on it. */
  readonly url: string;
  readonly format: TargetFormat;
}

/** Fields every rule has. */
interface RuleCommon {
  /** The owner's label, trimmed, or null. */
  readonly name: string | null;
  readonly target: Target | null;
  /** A disabled rule is kept but never fires. */
  readonly enabled: boolean;
}

/** The motherlode pool holds at least `minOre`. */
interface MotherlodeSpec extends RuleCommon {
  readonly kind: 'motherlode';
  /** Whole ORE, decimal; compared in base units, rounded to the nearest (ORE has 11 decimals). */
  readonly minOre: number;
}

/** Some square of the live round returns at least `minEvPerSol` per SOL for the stake. */
interface SquareEvSpec extends RuleCommon {
  readonly kind: 'square_ev';
  /** e.g. 0.05: the stake is expected to bring back 5% more than it costs. */
  readonly minEvPerSol: number;
  readonly stakeLamports: number;
  /** Lamports per whole ORE; null: the round's production cost (0 when it has none), as GET /live/ev. */
  readonly orePriceLamports: number | null;
  /** Checked only while the round has at most this many slots left. */
  readonly fromSlotsBeforeEnd: number;
  /** The squares considered, ascending and distinct; null: all 25. */
  readonly squares: readonly number[] | null;
}

/** A watched wallet deploys, wins, is the top miner or shares the motherlode. */
interface WalletSpec extends RuleCommon {
  readonly kind: 'wallet';
  /** Base58 public keys, distinct, in the order given. */
  readonly addresses: readonly string[];
  /** Distinct, in the order of WALLET_TRIGGERS. */
  readonly on: readonly WalletTrigger[];
}

/** An event-log event of `eventKind` whose fields pass every filter. */
interface EventSpec extends RuleCommon {
  readonly kind: 'event';
  readonly eventKind: EventKind;
  readonly filters: readonly EventFilter[];
}

/** A saved strategy's decision for the next round. Its owner is checked by the app. */
interface StrategySignalSpec extends RuleCommon {
  readonly kind: 'strategy_signal';
  readonly strategyId: string;
}

/** A rule as its owner wrote it (checked and normalized), before it is stored. */
export type RuleInput = MotherlodeSpec | SquareEvSpec | WalletSpec | EventSpec | StrategySignalSpec;

/** What storing adds: the id and when it was created (rules fire only on what happens after). */
interface Stored {
  readonly id: string;
  /** ISO time. */
  readonly createdAt: string;
}

/** A stored rule. */
export type Rule = RuleInput & Stored;
export type RuleOf<K extends RuleKind> = Extract<RuleInput, { kind: K }> & Stored;

export type ParseResult<T> = { readonly ok: true; readonly rule: T } | { readonly ok: false; readonly problems: readonly FieldError[] };

const COMMON_FIELDS = ['kind', 'name', 'target', 'enabled'] as const;
const KIND_FIELDS: Readonly<Record<RuleKind, readonly string[]>> = {
  motherlode: ['minOre'],
  square_ev: ['minEvPerSol', 'stakeLamports', 'orePriceLamports', 'fromSlotsBeforeEnd', 'squares'],
  wallet: ['addresses', 'on'],
  event: ['eventKind', 'filters'],
  strategy_signal: ['strategyId'],
};

type Body = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const oneOf = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(', ');
const isKind = (v: unknown): v is RuleKind => typeof v === 'string' && (RULE_KINDS as readonly string[]).includes(v);

/** Collects problems while fields are read, so every one is reported, not just the first. */
class Problems {
  readonly list: FieldError[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }
}

/**
 * A new rule from a request body, or every problem with it. `limits` bounds the addresses
 * of a wallet rule; the count of rules per key is the app's to check (`ruleCountProblem`),
 * since it needs the store.
 */
export function parseRuleInput(body: unknown, limits: RuleLimits = DEFAULT_RULE_LIMITS): ParseResult<RuleInput> {
  if (!isObject(body)) return { ok: false, problems: [{ path: '', message: 'must be a JSON object' }] };
  if (!isKind(body['kind'])) {
    return { ok: false, problems: [{ path: '/kind', message: `is required, one of ${oneOf(RULE_KINDS)}` }] };
  }
  return parseWhole(body, body['kind'], limits);
}

/**
 * `existing` changed by a PATCH body: the fields given replace the stored ones (`null`
 * clears an optional one: name, target, orePriceLamports, squares), then the whole rule
 * is checked again. The kind cannot change: that is another rule.
 */
export function parseRulePatch(existing: Rule, body: unknown, limits: RuleLimits = DEFAULT_RULE_LIMITS): ParseResult<Rule> {
  if (!isObject(body)) return { ok: false, problems: [{ path: '', message: 'must be a JSON object' }] };
  if ('kind' in body && body['kind'] !== existing.kind) {
    return { ok: false, problems: [{ path: '/kind', message: `cannot change (the rule is '${existing.kind}'); create a new rule instead` }] };
  }
  const { id, createdAt, ...stored } = existing;
  const merged: Record<string, unknown> = { ...stored, ...body };
  const parsed = parseWhole(merged, existing.kind, limits);
  return parsed.ok ? { ok: true, rule: { ...parsed.rule, id, createdAt } } : parsed;
}

/** A problem when an owner already holding `existing` rules asks for one more. */
export function ruleCountProblem(existing: number, limits: RuleLimits = DEFAULT_RULE_LIMITS): FieldError | null {
  return existing >= limits.rulesPerKey ? { path: '', message: `an API key may own at most ${limits.rulesPerKey} alert rules; delete one first` } : null;
}

function parseWhole(body: Body, kind: RuleKind, limits: RuleLimits): ParseResult<RuleInput> {
  const p = new Problems();
  const allowed = [...COMMON_FIELDS, ...KIND_FIELDS[kind]];
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) p.add(`/${escapePointer(key)}`, `is not a field of a '${kind}' rule (allowed: ${allowed.join(', ')})`);
  }
  const common: RuleCommon = { name: readName(body['name'], p), target: readTarget(body['target'], p), enabled: readEnabled(body['enabled'], p) };
  const rule = readKind(kind, body, common, p, limits);
  return p.list.length === 0 ? { ok: true, rule } : { ok: false, problems: p.list };
}

/** A JSON pointer token (RFC 6901). */
function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function readKind(kind: RuleKind, body: Body, common: RuleCommon, p: Problems, limits: RuleLimits): RuleInput {
  switch (kind) {
    case 'motherlode':
      return { kind, ...common, minOre: readMinOre(body['minOre'], p) };
    case 'square_ev':
      return {
        kind,
        ...common,
        minEvPerSol: readEvPerSol(body['minEvPerSol'], p),
        stakeLamports: readPositiveInteger(body['stakeLamports'], '/stakeLamports', MAX_STAKE_LAMPORTS, 'lamports', p) ?? 0,
        orePriceLamports: body['orePriceLamports'] === undefined || body['orePriceLamports'] === null ? null : readPositiveInteger(body['orePriceLamports'], '/orePriceLamports', MAX_ORE_PRICE_LAMPORTS, 'lamports per whole ORE', p),
        fromSlotsBeforeEnd: readSlots(body['fromSlotsBeforeEnd'], p),
        squares: body['squares'] === undefined || body['squares'] === null ? null : readSquares(body['squares'], p),
      };
    case 'wallet':
      return { kind, ...common, addresses: readAddresses(body['addresses'], limits.addressesPerRule, p), on: readTriggers(body['on'], p) };
    case 'event': {
      const eventKind = readEventKind(body['eventKind'], p);
      return { kind, ...common, eventKind: eventKind ?? 'drought_broken', filters: eventKind === null ? [] : readFilters(eventKind, body['filters'], p) };
    }
    case 'strategy_signal':
      return { kind, ...common, strategyId: readStrategyId(body['strategyId'], p) };
  }
}

function readName(value: unknown, p: Problems): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim().length === 0 || value.trim().length > MAX_NAME) {
    p.add('/name', `must be a string of 1 to ${MAX_NAME} characters after trimming, or null`);
    return null;
  }
  return value.trim();
}

function readEnabled(value: unknown, p: Problems): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') p.add('/enabled', 'must be true or false');
  return value !== false;
}

function readTarget(value: unknown, p: Problems): Target | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    p.add('/target', 'must be an object { url, format } or null (server-sent events only)');
    return null;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'url' && key !== 'format') p.add(`/target/${escapePointer(key)}`, 'is not a field of a target (allowed: url, format)');
  }
  const url = value['url'];
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL) p.add('/target/url', `is required: an https URL of at most ${MAX_URL} characters`);
  const format = value['format'] ?? 'standard';
  if (typeof format !== 'string' || !(TARGET_FORMATS as readonly string[]).includes(format)) p.add('/target/format', `must be one of ${oneOf(TARGET_FORMATS)} (default 'standard')`);
  return { url: typeof url === 'string' ? url : '', format: format as TargetFormat };
}

function readMinOre(value: unknown, p: Problems): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value > MAX_MIN_ORE || oreBaseUnits(value) <= 0) {
    p.add('/minOre', `is required: ORE as a decimal number, at least 0.00000000001 (one base unit) and at most ${MAX_MIN_ORE}`);
    return 0;
  }
  return value;
}

/** Whole ORE (a decimal) in base units, as the pool counts them. */
export function oreBaseUnits(ore: number): number {
  return Math.round(ore * ORE_BASE_UNITS);
}

function readEvPerSol(value: unknown, p: Problems): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= MIN_EV_PER_SOL || value > MAX_EV_PER_SOL) {
    p.add('/minEvPerSol', `is required: a number above ${MIN_EV_PER_SOL} and at most ${MAX_EV_PER_SOL} (0.05: the stake brings back 5% more than it costs, on average)`);
    return 0;
  }
  return value;
}

function readPositiveInteger(value: unknown, path: string, max: number, unit: string, p: Problems): number | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > max) {
    p.add(path, `must be a whole number of ${unit}, at least 1 and at most ${max}`);
    return null;
  }
  return value;
}

function readSlots(value: unknown, p: Problems): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_SLOTS_BEFORE_END) {
    p.add('/fromSlotsBeforeEnd', `is required: a whole number of slots from 1 to ${MAX_SLOTS_BEFORE_END}`);
    return 1;
  }
  return value;
}

function readSquares(value: unknown, p: Problems): number[] | null {
  if (!Array.isArray(value) || value.length === 0) {
    p.add('/squares', `must be a non-empty list of squares 0 to ${SQUARES - 1}, or null for all`);
    return null;
  }
  const seen = new Set<number>();
  value.forEach((s: unknown, i) => {
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 0 || s >= SQUARES) p.add(`/squares/${i}`, `must be a square 0 to ${SQUARES - 1}`);
    else if (seen.has(s)) p.add(`/squares/${i}`, `repeats square ${s}`);
    else seen.add(s);
  });
  return [...seen].sort((a, b) => a - b);
}

/** Whether `text` is a Solana public key: base58 of exactly 32 bytes. */
export function isSolanaAddress(text: string): boolean {
  if (text.length < 32 || text.length > 44) return false;
  try {
    return decodeBase58(text).length === 32;
  } catch {
    return false;
  }
}

function readAddresses(value: unknown, max: number, p: Problems): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > max) {
    p.add('/addresses', `is required: a list of 1 to ${max} wallet addresses (base58 public keys)`);
    return [];
  }
  const seen = new Set<string>();
  value.forEach((a: unknown, i) => {
    if (typeof a !== 'string' || !isSolanaAddress(a)) p.add(`/addresses/${i}`, 'must be a base58 Solana public key (32 bytes)');
    else if (seen.has(a)) p.add(`/addresses/${i}`, `repeats ${a}`);
    else seen.add(a);
  });
  return [...seen];
}

function readTriggers(value: unknown, p: Problems): WalletTrigger[] {
  if (!Array.isArray(value) || value.length === 0) {
    p.add('/on', `is required: a non-empty list of ${oneOf(WALLET_TRIGGERS)}`);
    return [];
  }
  const given = new Set<unknown>();
  value.forEach((t: unknown, i) => {
    if (typeof t !== 'string' || !(WALLET_TRIGGERS as readonly string[]).includes(t)) p.add(`/on/${i}`, `must be one of ${oneOf(WALLET_TRIGGERS)}`);
    else if (given.has(t)) p.add(`/on/${i}`, `repeats '${t}'`);
    given.add(t);
  });
  return WALLET_TRIGGERS.filter((t) => given.has(t));
}

function readEventKind(value: unknown, p: Problems): EventKind | null {
  if (typeof value !== 'string' || !(EVENT_KINDS as readonly string[]).includes(value)) {
    p.add('/eventKind', `is required, one of the event log's kinds: ${oneOf(EVENT_KINDS)}`);
    return null;
  }
  return value as EventKind;
}

function readFilters(kind: EventKind, value: unknown, p: Problems): EventFilter[] {
  if (value === undefined || value === null) return [];
  const { filters, problems } = eventFilterProblems(kind, value, '/filters');
  for (const problem of problems) p.add(problem.path, problem.message);
  return filters;
}

function readStrategyId(value: unknown, p: Problems): string {
  if (typeof value !== 'string' || !STRATEGY_ID_RE.test(value)) {
    p.add('/strategyId', "is required: a strategy id ('stg_' and 22 base58 characters) of one of your strategies");
    return '';
  }
  return value;
}
