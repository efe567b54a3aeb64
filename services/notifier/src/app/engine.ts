import type { ForwardDecision, LiveSnapshot, LogEvent, MinerDeployed, Round, RoundMiners } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import type { Firing } from '../domain/alerts';
import { createEvaluator, type Evaluator } from '../domain/evaluate';
import { parseRuleInput, type Rule } from '../domain/rules';

/** A rule as the store keeps it: the kind's own settings in `params`. */
export interface StoredRuleView {
  readonly id: string;
  readonly kind: string;
  readonly name: string | null;
  readonly params: unknown;
  readonly target: { readonly url: string; readonly format: string } | null;
  readonly enabled: boolean;
  readonly createdAt: Date;
}

/** Where the engine reads the rules and stores what fired (PostgreSQL in production). */
export interface EnginePorts {
  /** A mark that changes whenever any rule does. */
  rulesVersion(): Promise<string>;
  enabledRules(): Promise<readonly StoredRuleView[]>;
  /** Stores firings once by their dedup key; how many were new and queued for delivery. */
  fire(firings: readonly (Firing & { readonly firedAt: Date })[]): Promise<{ readonly stored: number; readonly queued: number }>;
}

export interface EngineEvents {
  /** Firings of one input, and how many of them were new (another replica may have stored the rest). */
  fired(input: InputKind, firings: number, stored: number, queued: number): void;
  /** An input evaluated (its time, for the metrics). */
  evaluated(input: InputKind, seconds: number): void;
  /** New firings were queued: the dispatcher should look now. */
  queued(): void;
}

export type InputKind = 'live' | 'deploy' | 'settled' | 'miners' | 'event' | 'decision';

/**
 * The alert rules applied to what happens: every input the notifier receives goes
 * through the evaluator, in arrival order (one at a time: the evaluator remembers what
 * earlier inputs said), and what fires is stored once by its dedup key, which is what
 * lets every replica evaluate every input. The rules are read again when they change
 * (`refresh`); what the evaluator remembers survives the reload.
 */
export class AlertEngine {
  private evaluator: Evaluator = createEvaluator([]);
  private version: string | null = null;
  private tail: Promise<void> = Promise.resolve();
  /** Firings not stored yet (PostgreSQL was away): stored before the next input's. */
  private unstored: (Firing & { readonly firedAt: Date })[] = [];

  constructor(
    private readonly ports: EnginePorts,
    private readonly events: EngineEvents,
    private readonly logger: Logger,
    private readonly now: () => Date,
  ) {}

  /** Reads the rules again if any changed since the last read; how many are enabled, or null when none changed. */
  async refresh(): Promise<number | null> {
    const version = await this.ports.rulesVersion();
    if (version === this.version) return null;
    const rules: Rule[] = [];
    for (const stored of await this.ports.enabledRules()) {
      const rule = toRule(stored);
      if (rule === null) this.logger.warn('a stored alert rule no longer reads as a rule; it is not evaluated', { ruleId: stored.id, kind: stored.kind });
      else rules.push(rule);
    }
    await this.serially(() => {
      this.evaluator = createEvaluator(rules, this.evaluator.state());
      return Promise.resolve();
    });
    this.version = version;
    return rules.length;
  }

  live(snapshot: LiveSnapshot): Promise<void> {
    return this.input('live', (e) => e.onLive(snapshot));
  }

  deployed(deploy: MinerDeployed): Promise<void> {
    return this.input('deploy', (e) => e.onMinerDeployed(deploy));
  }

  settled(round: Round): Promise<void> {
    return this.input('settled', (e) => e.onRoundSettled(round));
  }

  miners(miners: RoundMiners): Promise<void> {
    return this.input('miners', (e) => e.onMinersSettled(miners));
  }

  event(event: LogEvent): Promise<void> {
    return this.input('event', (e) => e.onEvent(event));
  }

  decided(decision: ForwardDecision): Promise<void> {
    return this.input('decision', (e) => e.onForwardDecision(decision));
  }

  /** Waits for the inputs taken so far. */
  idle(): Promise<void> {
    return this.serially(() => Promise.resolve());
  }

  private input(kind: InputKind, evaluate: (e: Evaluator) => Firing[]): Promise<void> {
    return this.serially(async () => {
      const started = performance.now();
      const firings = evaluate(this.evaluator);
      this.events.evaluated(kind, (performance.now() - started) / 1000);
      if (firings.length === 0 && this.unstored.length === 0) return;
      const firedAt = this.now();
      // The evaluator has moved on (a motherlode rule that fired waits for the pool to fall):
      // what it fired is kept until it is stored, never evaluated again.
      const batch = [...this.unstored, ...firings.map((f) => ({ ...f, firedAt }))];
      this.unstored = batch;
      const { stored, queued } = await this.ports.fire(batch);
      this.unstored = [];
      this.events.fired(kind, batch.length, stored, queued);
      if (queued > 0) this.events.queued();
    });
  }

  /** Firings waiting for PostgreSQL. */
  unstoredCount(): number {
    return this.unstored.length;
  }

  /**
   * Runs `step` after every step taken before it. A failed step (PostgreSQL away) is
   * logged and does not stop the next; its firings are stored with the next input's.
   */
  private serially(step: () => Promise<void>): Promise<void> {
    this.tail = this.tail.then(step).catch((error: unknown) => {
      this.logger.error('alert input not evaluated', { err: error });
    });
    return this.tail;
  }
}

/** The domain's rule from its stored form, checked again as a new one would be; null when it no longer is one. */
export function toRule(stored: StoredRuleView): Rule | null {
  const params = typeof stored.params === 'object' && stored.params !== null && !Array.isArray(stored.params) ? stored.params : {};
  const parsed = parseRuleInput({ ...params, kind: stored.kind, name: stored.name, target: stored.target, enabled: stored.enabled });
  return parsed.ok ? { ...parsed.rule, id: stored.id, createdAt: stored.createdAt.toISOString() } : null;
}
