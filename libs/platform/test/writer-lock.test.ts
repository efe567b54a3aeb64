import { createLogger } from '@gridlab/logger';
import { createMetrics } from '@gridlab/runtime';
import { createTestDatabase, type TestDatabase } from '@gridlab/testing';
import { holdWriterLock } from '../src';

let db: TestDatabase;
const logger = createLogger({ service: 'test', silent: true });

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function held(registry: ReturnType<typeof createMetrics>, lock: string): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'writer_lock_held');
  return metric?.values.find((v) => v.labels['lock'] === lock)?.value;
}

describe('holdWriterLock', () => {
  it('reports writer_lock_held: 1 for the writer, 0 for the standby, and the standby takes over on release', async () => {
    const first = createMetrics('a');
    const second = createMetrics('b');
    const abort = new AbortController();
    const lock = await holdWriterLock(db.url, 'test-writer', { logger, signal: abort.signal, metrics: first, retryMs: 50 });
    expect(await held(first, 'test-writer')).toBe(1);
    const standby = holdWriterLock(db.url, 'test-writer', { logger, signal: abort.signal, metrics: second, retryMs: 50 });
    await new Promise((r) => setTimeout(r, 200));
    expect(await held(second, 'test-writer')).toBe(0);
    await lock!.release();
    expect(await held(first, 'test-writer')).toBe(0);
    const taken = await standby;
    expect(await held(second, 'test-writer')).toBe(1);
    await taken!.release();
  });
});
