/**
 * Which rules fire on each message the notifier consumes, and with what payload. The
 * evaluator holds the enabled rules indexed the way each input looks them up (the live
 * snapshot: motherlode and square_ev rules; a wallet's deploy or ledger row: a Map by
 * address; an event: a Map by kind; a decision: a Map by strategy), so a message costs
 * what the rules it concerns cost, not a scan of every rule.
 *
 * Pure: no clock, no I/O. The few facts it remembers between messages (which rules hold
 * above their motherlode bar, which square_ev rules fired this round, the deploys of
 * watched wallets in the live round) are plain data; `state()` gives what is worth
 * persisting. The caller keeps a firing only when its dedup key is new, so a message
 * delivered twice, or an occurrence reported by two inputs, is posted once.
 */
import type { LiveSnapshot, LogEvent, MinerDeployed, MinerRound, Round, RoundMiners } from '@gridlab/contracts';
import type { Decision } from '@gridlab/strategy';
import { dedupKeys, type Firing, type WalletAlert } from './alerts';
import { passesFilters } from './event-filters';
import { MotherlodeWatch, SquareEvWatch, type SquareEvProgress } from './live-rules';
import type { Rule, RuleOf, WalletTrigger } from './rules';

/**
 * Settled rounds remembered: which had their ledger rows already (a round settling after
 * its rows is not inferred from deploys again) and their winning squares (ledger rows do
 * not carry it). Rows follow their round by seconds; a history fill's are older and fire
 * nothing, being before every rule's creation, or name no winning square.
 */
const RECENT_ROUNDS = 64;

/**
 * A strategy's decision for the round the board has open: what lab-forward's writer
 * records (its runner's `decide()`) as soon as the round before it settles.
 */
export interface ForwardDecision {
  readonly strategyId: string;
  readonly roundId: number;
  readonly decision: Decision;
}

/** What the evaluator remembers that should survive a restart (persist it, pass it back). */
export interface EvaluatorState {
  /** Motherlode rules whose bar the pool is at or above (they fired and wait for it to fall below). */
  readonly motherlodeHolding: readonly string[];
  /** The round square_ev rules were last checked in, and those that fired in it. */
  readonly squareEvRound: number | null;
  readonly squareEvFired: readonly string[];
}

export interface Evaluator {
  /** A `grid.live.updated` snapshot: motherlode and square_ev rules. */
  onLive(snapshot: LiveSnapshot): Firing[];
  /** A `grid.miners.deployed` deploy of the live round: wallet rules watching `deploy`. */
  onMinerDeployed(deploy: MinerDeployed): Firing[];
  /** A `grid.round.settled` round: wallet rules, from the live deploys, unless the round's ledger rows came already. */
  onRoundSettled(round: Round): Firing[];
  /** A `grid.miners.settled` message (all or part of a round's rows): wallet rules, from the ledger. */
  onMinersSettled(miners: RoundMiners): Firing[];
  /** An `events.event.appended` event: event rules. */
  onEvent(event: LogEvent): Firing[];
  /** A forward decision: strategy_signal rules. */
  onForwardDecision(decision: ForwardDecision): Firing[];
  /** Adds or replaces a rule (a disabled one is kept out of the index). */
  upsert(rule: Rule): void;
  remove(ruleId: string): void;
  state(): EvaluatorState;
}

type WalletRule = RuleOf<'wallet'>;
type Timed<R> = { readonly rule: R; readonly createdAtMs: number };

/** The enabled rules, as the inputs look them up. */
interface Index {
  readonly motherlode: MotherlodeWatch;
  readonly squareEv: SquareEvWatch;
  readonly wallets: ReadonlyMap<string, readonly Timed<WalletRule>[]>;
  readonly events: ReadonlyMap<string, readonly Timed<RuleOf<'event'>>[]>;
  readonly strategies: ReadonlyMap<string, readonly RuleOf<'strategy_signal'>[]>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The index of the enabled `rules`; the live watches share the evaluator's `holding` and `progress`. */
function buildIndex(rules: Iterable<Rule>, holding: Set<string>, progress: SquareEvProgress): Index {
  const motherlode: RuleOf<'motherlode'>[] = [];
  const squareEv: RuleOf<'square_ev'>[] = [];
  const wallets = new Map<string, Timed<WalletRule>[]>();
  const events = new Map<string, Timed<RuleOf<'event'>>[]>();
  const strategies = new Map<string, RuleOf<'strategy_signal'>[]>();
  for (const rule of rules) {
    if (!rule.enabled) continue;
    const createdAtMs = Date.parse(rule.createdAt);
    switch (rule.kind) {
      case 'motherlode':
        motherlode.push(rule);
        break;
      case 'square_ev':
        squareEv.push(rule);
        break;
      case 'wallet':
        for (const address of rule.addresses) push(wallets, address, { rule, createdAtMs });
        break;
      case 'event':
        push(events, rule.eventKind, { rule, createdAtMs });
        break;
      case 'strategy_signal':
        push(strategies, rule.strategyId, rule);
        break;
    }
  }
  return { motherlode: new MotherlodeWatch(motherlode, holding), squareEv: new SquareEvWatch(squareEv, progress), wallets, events, strategies };
}

/** Records `value` for `roundId` in a map of the RECENT_ROUNDS newest (insertion follows round order closely). */
function remember<V>(recent: Map<number, V>, roundId: number, value: V): void {
  recent.set(roundId, value);
  if (recent.size > RECENT_ROUNDS) recent.delete(recent.keys().next().value!);
}

/** A watched wallet's deploys in one live round: the squares held, or null once a deploy did not show them. */
interface HeldSquares {
  squares: Set<number> | null;
}

/** An evaluator over `rules`, resuming `state` when given. */
export function createEvaluator(rules: readonly Rule[], state?: EvaluatorState): Evaluator {
  const byId = new Map(rules.map((r) => [r.id, r]));
  const holding = new Set(state?.motherlodeHolding ?? []);
  const progress: SquareEvProgress = { roundId: state?.squareEvRound ?? null, fired: new Set(state?.squareEvFired ?? []) };
  let index: Index | null = null;
  const current = (): Index => (index ??= buildIndex(byId.values(), holding, progress));
  /** Per live round, per watched address: the squares its deploys took. */
  const deploys = new Map<number, Map<string, HeldSquares>>();
  /** Rounds whose ledger rows arrived. */
  const ledgerRounds = new Map<number, true>();
  /** Winning squares of the rounds settled lately. */
  const winners = new Map<number, number | null>();

  /** A firing of every wallet rule on `address` that watches `on`, made at or after its creation (`atMs`; null: live, now). */
  function walletFirings(address: string, on: WalletTrigger, atMs: number | null, alert: Omit<WalletAlert, 'type' | 'ruleId' | 'address' | 'on'>): Firing[] {
    const out: Firing[] = [];
    for (const { rule, createdAtMs } of current().wallets.get(address) ?? []) {
      if (!rule.on.includes(on) || (atMs !== null && atMs < createdAtMs)) continue;
      out.push({ ruleId: rule.id, dedupKey: dedupKeys.wallet(rule.id, alert.roundId, address, on), payload: { type: 'alert.wallet', ruleId: rule.id, address, on, ...alert } });
    }
    return out;
  }

  function onMinerDeployed(deploy: MinerDeployed): Firing[] {
    if (!current().wallets.has(deploy.address)) return [];
    let round = deploys.get(deploy.roundId);
    if (round === undefined) {
      round = new Map();
      // Bounded even if settled rounds stop coming: the oldest round's deploys go first.
      remember(deploys, deploy.roundId, round);
    }
    const held = round.get(deploy.address) ?? { squares: new Set<number>() };
    round.set(deploy.address, held);
    if (deploy.squares === null) held.squares = null;
    else for (const s of deploy.squares) held.squares?.add(s);
    const staked = deploy.squares === null || deploy.amount === null ? null : deploy.amount * deploy.squares.length;
    return walletFirings(deploy.address, 'deploy', null, { roundId: deploy.roundId, source: 'deploys', squares: deploy.squares, deployedLamports: staked, winningSquare: null, ore: null });
  }

  function onRoundSettled(round: Round): Firing[] {
    remember(winners, round.id, round.winningSquare);
    const seen = deploys.get(round.id);
    for (const id of deploys.keys()) if (id <= round.id) deploys.delete(id);
    if (seen === undefined || ledgerRounds.has(round.id)) return [];
    const atMs = Date.parse(round.settledAt);
    const out: Firing[] = [];
    for (const [address, held] of seen) {
      if (held.squares === null) continue;
      const squares = [...held.squares].sort((a, b) => a - b);
      const base = { roundId: round.id, source: 'deploys' as const, squares, deployedLamports: null, winningSquare: round.winningSquare, ore: null };
      const won = round.winningSquare !== null && held.squares.has(round.winningSquare);
      if (won) out.push(...walletFirings(address, 'win', atMs, base));
      if (round.topMiner === address) out.push(...walletFirings(address, 'top_miner', atMs, base));
      if (won && round.motherlode > 0) out.push(...walletFirings(address, 'motherlode', atMs, base));
    }
    return out;
  }

  function rowFirings(row: MinerRound, winningSquare: number | null): Firing[] {
    const atMs = Date.parse(row.settledAt);
    const base = { roundId: row.roundId, source: 'ledger' as const, squares: row.squares, deployedLamports: row.deployed, winningSquare };
    return [
      ...walletFirings(row.address, 'deploy', atMs, { ...base, ore: null }),
      ...(row.heldWinningSquare === true ? walletFirings(row.address, 'win', atMs, { ...base, ore: null }) : []),
      ...(row.topMiner === true ? walletFirings(row.address, 'top_miner', atMs, { ...base, ore: row.oreTopMiner }) : []),
      ...((row.oreMotherlode ?? 0) > 0 ? walletFirings(row.address, 'motherlode', atMs, { ...base, ore: row.oreMotherlode }) : []),
    ];
  }

  function onMinersSettled(miners: RoundMiners): Firing[] {
    remember(ledgerRounds, miners.roundId, true);
    const wallets = current().wallets;
    const winningSquare = winners.get(miners.roundId) ?? null;
    return miners.miners.flatMap((row) => (wallets.has(row.address) ? rowFirings(row, winningSquare) : []));
  }

  function onEvent(event: LogEvent): Firing[] {
    const atMs = Date.parse(event.ts);
    const events = current().events;
    const roundId = 'roundId' in event ? event.roundId : null;
    const fire = ({ rule, createdAtMs }: Timed<RuleOf<'event'>>): Firing[] =>
      atMs < createdAtMs ? [] : [{ ruleId: rule.id, dedupKey: dedupKeys.event(rule.id, event.id), payload: { type: 'alert.event', ruleId: rule.id, roundId, event } }];
    const own = (events.get(event.kind) ?? []).filter((r) => passesFilters(event, r.rule.filters)).flatMap(fire);
    // A correction reaches every rule of the withdrawn kind: its fields are gone, so filters cannot judge it.
    const corrections = event.kind === 'withdrawn' ? (events.get(event.eventKind) ?? []).flatMap(fire) : [];
    return [...own, ...corrections];
  }

  function onForwardDecision({ strategyId, roundId, decision }: ForwardDecision): Firing[] {
    return (current().strategies.get(strategyId) ?? []).map((rule) => ({
      ruleId: rule.id,
      dedupKey: dedupKeys.strategySignal(rule.id, roundId),
      payload: {
        type: 'alert.strategy_signal',
        ruleId: rule.id,
        roundId,
        strategyId,
        bet: decision.bet,
        reason: decision.reason,
        squares: decision.squares,
        stakesLamports: decision.stakesLamports,
        totalLamports: decision.stakesLamports.reduce((a, b) => a + b, 0),
      },
    }));
  }

  return {
    onLive(snapshot) {
      const pool = snapshot.game?.motherlodePool ?? null;
      const { motherlode, squareEv } = current();
      return [...(pool === null ? [] : motherlode.onPool(snapshot.roundId, pool)), ...squareEv.onSnapshot(snapshot)];
    },
    onMinerDeployed,
    onRoundSettled,
    onMinersSettled,
    onEvent,
    onForwardDecision,
    upsert(rule) {
      const before = byId.get(rule.id);
      // A changed bar, or a rule enabled again, is judged afresh against the pool.
      if (before === undefined || before.kind !== 'motherlode' || rule.kind !== 'motherlode' || before.minOre !== rule.minOre || !before.enabled) holding.delete(rule.id);
      byId.set(rule.id, rule);
      index = null;
    },
    remove(ruleId) {
      byId.delete(ruleId);
      holding.delete(ruleId);
      progress.fired.delete(ruleId);
      index = null;
    },
    state: () => ({ motherlodeHolding: [...holding].sort(), squareEvRound: progress.roundId, squareEvFired: [...progress.fired].sort() }),
  };
}
