import { ensureRoundsStream, jetStreamOf, publishDurable } from '@gridlab/bus';
import { natsNames } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { createMetrics } from '@gridlab/runtime';
import { createTestDatabase, testNamespace, type TestDatabase } from '@gridlab/testing';
import { runSingleWriter, startPlatform, type Platform, type SingleWriterOptions } from '../src';

let db: TestDatabase;
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
const logger = createLogger({ service: 'test', silent: true });
const platforms: Platform[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(platforms.map((p) => p.stop().catch(() => undefined)));
  await db.drop();
  await ns.cleanup();
});

async function platform(): Promise<Platform> {
  const started = await startPlatform('test', { DATABASE_URL: db.url, NATS_URL: ns.natsUrl, LOG_LEVEL: 'error' }, { signals: false, logger, metrics: createMetrics('test') });
  platforms.push(started);
  return started;
}

/** A writer that records what happens to it. */
function recordingWriter(seen: string[]) {
  return {
    poke: () => Promise.resolve(void seen.push('poke')),
    idle: () => Promise.resolve(void seen.push('idle')),
  };
}

function options(p: Platform, seen: string[], lock: string): SingleWriterOptions<ReturnType<typeof recordingWriter>> {
  return {
    databaseUrl: db.url,
    lock: `${ns.natsPrefix}-${lock}`,
    start: () => (seen.push('start'), Promise.resolve(recordingWriter(seen))),
    ensureStreams: () => ensureRoundsStream(p.nc, names),
    wakeUps: [{ stream: names.streams.rounds, durable: `${ns.natsPrefix}_${lock}`, subject: names.subjects.roundSettled }],
    catchUpMs: 60_000,
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('runSingleWriter', () => {
  it('starts one writer, pokes it per wake-up, and on stop lets it go idle and frees the lock for the standby', async () => {
    const leader = await platform();
    const seen: string[] = [];
    expect(await runSingleWriter(leader, options(leader, seen, 'first'))).not.toBeNull();
    expect(seen).toEqual(['start', 'poke']);

    const standby = await platform();
    const standbySeen: string[] = [];
    const standing = runSingleWriter(standby, options(standby, standbySeen, 'first'));
    await publishDurable(jetStreamOf(leader.nc), names.subjects.roundSettled, new TextEncoder().encode('{}'), 'wake-1');
    await until(() => seen.length === 3);
    expect(seen).toEqual(['start', 'poke', 'poke']);
    expect(standbySeen).toEqual([]);

    await leader.stop();
    expect(seen.at(-1)).toBe('idle');
    expect(await standing).not.toBeNull();
    expect(standbySeen).toEqual(['start', 'poke']);
  });

  it('resolves null when shutdown begins while it stands by', async () => {
    const leader = await platform();
    await runSingleWriter(leader, options(leader, [], 'second'));
    const standby = await platform();
    const seen: string[] = [];
    const standing = runSingleWriter(standby, options(standby, seen, 'second'));
    await standby.stop();
    expect(await standing).toBeNull();
    expect(seen).toEqual([]);
  });
});
