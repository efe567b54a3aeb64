/**
 * The NATS table in @gridlab/contracts (COMMANDS, EVENTS) against what production lets
 * each service do (k8s/engines/nats-values.yaml, the permissions the least-privilege
 * journey runs under) and against the services' code: a command is served where it is
 * declared and nowhere else, sent by its declared callers only, and a subject is
 * published by its declared publisher only.
 */
import { COMMANDS, EVENTS, natsNames, type Service } from '@gridlab/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');
const SERVICES: readonly Service[] = ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest', 'notifier'];
const names = natsNames('');

interface Permissions {
  readonly publish?: { readonly allow?: readonly string[] };
  readonly subscribe?: { readonly allow?: readonly string[] };
}

function natsUsers(): Map<string, Permissions> {
  const values = parse(readFileSync(join(ROOT, 'k8s/engines/nats-values.yaml'), 'utf8')) as {
    config: { merge: { authorization: { users: { user: string; permissions: Permissions }[] } } };
  };
  return new Map(values.config.merge.authorization.users.map((u) => [u.user, u.permissions]));
}

/** Whether the NATS pattern (`*` one token, `>` the rest) matches `subject`. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

const allows = (patterns: readonly string[] | undefined, subject: string): boolean => (patterns ?? []).some((p) => matches(p, subject));
/** A pattern of the application's own subjects (not JetStream's API, a KV key or a reply inbox). */
const isAppSubject = (pattern: string): boolean => !pattern.startsWith('$') && !pattern.startsWith('_INBOX');

const commands = Object.entries(COMMANDS).map(([key, spec]) => ({ subject: names.commands[key as keyof typeof COMMANDS], server: spec.server, callers: spec.callers }));
const events = Object.entries(EVENTS).map(([key, spec]) => ({
  subject: names.subjects[key as keyof typeof EVENTS],
  publisher: spec.publisher.service,
  receivers: ((spec as { receivers?: readonly { service: Service }[] }).receivers ?? []).map((r) => r.service),
}));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the NATS table', () => {
  const users = natsUsers();

  it('has a NATS user for every service', () => {
    expect([...users.keys()].sort()).toEqual([...SERVICES].sort());
  });

  it.each(SERVICES)('lets %s subscribe to the commands it serves and the events it receives, and to no other subject', (service) => {
    const allowed = users.get(service)?.subscribe?.allow ?? [];
    const wanted = [...commands.filter((c) => c.server === service).map((c) => c.subject), ...events.filter((e) => e.receivers.includes(service)).map((e) => e.subject)];
    for (const subject of wanted) expect([service, subject, allows(allowed, subject)]).toEqual([service, subject, true]);
    // Every application subject it may subscribe to is one the table gives it.
    const all = [...commands.map((c) => c.subject), ...events.map((e) => e.subject)];
    for (const pattern of allowed.filter(isAppSubject)) {
      const reached = all.filter((subject) => matches(pattern, subject));
      expect([service, pattern, reached.length > 0 && reached.every((subject) => wanted.includes(subject))]).toEqual([service, pattern, true]);
    }
  });

  it.each(SERVICES)('lets %s publish the events it publishes and send the commands it calls, and nothing else of the table', (service) => {
    const allowed = users.get(service)?.publish?.allow ?? [];
    for (const c of commands) expect([service, c.subject, allows(allowed, c.subject)]).toEqual([service, c.subject, c.callers.includes(service)]);
    for (const e of events) expect([service, e.subject, allows(allowed, e.subject)]).toEqual([service, e.subject, e.publisher === service]);
  });

  it('is served through its declarations: each serving service names itself to serveDeclared or commandsServedBy, and no service answers commands another way', () => {
    for (const service of SERVICES) {
      const code = sources(join(ROOT, 'services', service, 'src')).map((path) => readFileSync(path, 'utf8')).join('\n');
      const serves = commands.some((c) => c.server === service);
      const bound = new RegExp(`serveDeclared\\([^)]*'${service}'|commandsServedBy\\('${service}'\\)`).test(code);
      expect([service, bound]).toEqual([service, serves]);
      expect([service, /\bserveCommands\(|\broute\(\{/.test(code)]).toEqual([service, false]);
    }
  });
});
