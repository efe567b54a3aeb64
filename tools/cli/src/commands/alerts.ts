import type { AlertCreateRequest, AlertResponse } from '@gridlab/client';
import { InputError } from '@gridlab/errors';
import type { Command } from 'commander';
import { apiOptions, clientFor, print, printTable, readJsonFile, type ApiOptions } from '../api';

type Alert = AlertResponse['alert'];

/** What a rule watches, in a few words. */
function describeRule(a: Alert): string {
  switch (a.kind) {
    case 'motherlode':
      return `pool >= ${a.minOre} ORE`;
    case 'square_ev':
      return `EV/SOL >= ${a.minEvPerSol} for ${a.stakeLamports} lamports, from ${a.fromSlotsBeforeEnd} slots before the end`;
    case 'wallet':
      return `${(a.addresses ?? []).length} wallet(s) on ${(a.on ?? []).join(', ')}`;
    case 'event':
      return `${a.eventKind} events${(a.filters ?? []).length > 0 ? ` where ${(a.filters ?? []).map((f) => `${f.field} ${f.op} ${f.value}`).join(' and ')}` : ''}`;
    case 'strategy_signal':
      return `decisions of ${a.strategyId}`;
  }
}

function state(a: Alert): string {
  if (a.enabled) return a.failingSince === null ? 'enabled' : `enabled (failing since ${a.failingSince})`;
  return a.disabledReason === null ? 'disabled' : `disabled: ${a.disabledReason}`;
}

function alertRows(a: Alert): Array<[string, unknown]> {
  return [
    ['id', a.id],
    ['kind', a.kind],
    ['name', a.name ?? ''],
    ['watches', describeRule(a)],
    ['target', a.target === null ? '(alert stream only)' : `${a.target.url} (${a.target.format ?? 'standard'})`],
    ['state', state(a)],
    ['created', a.createdAt],
  ];
}

function firingId(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InputError('a firing id is a positive integer (see `gridlab alerts deliveries <id>`)');
  return n;
}

/** `gridlab alerts ...`: the caller's alert rules, their secrets, test pings and delivery log. */
export function registerAlerts(program: Command): void {
  const alerts = program.command('alerts').description('alert rules: what the game does, pushed to your webhook (Standard Webhooks 1.0) or read from the alert log');
  apiOptions(alerts.command('list').description('your alert rules')).action(async (opts: ApiOptions) => {
    const list = await clientFor(opts).alerts();
    printTable(opts, list, ['id', 'kind', 'watches', 'target', 'state'], list.alerts.map((a) => [a.id, a.kind, describeRule(a), a.target?.url ?? '', state(a)]));
  });
  apiOptions(
    alerts
      .command('create')
      .description('create a rule from a JSON file ({"kind": "motherlode", "minOre": 100, "target": {"url": "https://..."}} and the like); prints its signing secret, once')
      .argument('<rule.json>', 'the rule'),
  ).action(async (file: string, opts: ApiOptions) => {
    const created = await clientFor(opts).createAlert(readJsonFile(file, 'rule file') as AlertCreateRequest);
    print(opts, created, () => [...alertRows(created.alert), ['secret', created.secret ?? '(no target: none)']]);
    if (opts.json !== true && created.secret !== null) process.stderr.write('Keep the secret: it is shown this once (`gridlab alerts rotate-secret` makes a new one).\n');
  });
  apiOptions(alerts.command('show').description('one of your rules').argument('<id>', 'alert id (alr_...)')).action(async (id: string, opts: ApiOptions) => {
    const { alert } = await clientFor(opts).alert(id);
    print(opts, { alert }, () => alertRows(alert));
  });
  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    apiOptions(alerts.command(name).description(`${name} a rule${enabled ? ' (also one the notifier disabled for its failing endpoint)' : ''}`).argument('<id>', 'alert id')).action(
      async (id: string, opts: ApiOptions) => {
        const { alert } = await clientFor(opts).updateAlert(id, { enabled });
        print(opts, { alert }, () => alertRows(alert));
      },
    );
  }
  apiOptions(alerts.command('delete').description('delete a rule with its firings and delivery log').argument('<id>', 'alert id')).action(async (id: string, opts: ApiOptions) => {
    print(opts, await clientFor(opts).deleteAlert(id), () => [['deleted', id]]);
  });
  apiOptions(alerts.command('test').description("send one alert.test delivery to the rule's target now").argument('<id>', 'alert id')).action(async (id: string, opts: ApiOptions) => {
    const t = await clientFor(opts).testAlert(id);
    print(opts, t, () => [
      ['webhook-id', t.webhookId],
      ['delivered', t.delivered],
      ['status', t.status ?? ''],
      ['latency ms', t.latencyMs],
      ['error', t.error ?? ''],
      ['answer', t.excerpt],
    ]);
  });
  apiOptions(alerts.command('deliveries').description("the rule's latest firings and their attempts, newest first").argument('<id>', 'alert id')).action(
    async (id: string, opts: ApiOptions) => {
      const log = await clientFor(opts).alertDeliveries(id);
      printTable(
        opts,
        log,
        ['firing', 'fired', 'type', 'round', 'state', 'attempts', 'last status', 'last error'],
        log.firings.map((f) => [f.id, f.firedAt, f.payload.type, f.payload.roundId ?? '', f.state ?? 'stream only', f.attempts.length, f.attempts[0]?.status ?? '', f.attempts[0]?.error ?? '']),
      );
    },
  );
  apiOptions(
    alerts.command('redeliver').description('queue a firing again, now, under its webhook-id').argument('<id>', 'alert id').argument('<firing>', 'firing id (from `deliveries`)'),
  ).action(async (id: string, firing: string, opts: ApiOptions) => {
    const r = await clientFor(opts).redeliverAlert(id, firingId(firing));
    print(opts, r, () => [['queued', r.queued], ['webhook-id', r.webhookId]]);
  });
  apiOptions(
    alerts
      .command('follow')
      .description('your firings as they happen (GET /alerts/stream), one line each (--json: one JSON object each); reconnects without losing or repeating any')
      .option('--after <firing>', 'first the firings after this firing id'),
  ).action(async (opts: ApiOptions & { after?: string }) => {
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    const options = { signal: stop.signal, ...(opts.after === undefined ? {} : { after: firingId(opts.after) }) };
    for await (const f of clientFor(opts).alertStream(options)) {
      const { type, roundId } = f.payload;
      process.stdout.write(opts.json === true ? `${JSON.stringify(f)}\n` : `${f.id}\t${f.firedAt}\t${type}\t${f.ruleId}\t${roundId ?? ''}\t${f.webhookId}\n`);
    }
  });
  apiOptions(alerts.command('rotate-secret').description('a new signing secret; the previous ones keep signing beside it for 24 h').argument('<id>', 'alert id')).action(
    async (id: string, opts: ApiOptions) => {
      const s = await clientFor(opts).rotateAlertSecret(id);
      print(opts, s, () => [['secret', s.secret], ['previous retire at', s.previousRetiresAt]]);
    },
  );
}
