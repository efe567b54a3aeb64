import { createLogger } from '@gridlab/logger';
import { repeatEvery } from './repeat';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('repeatEvery', () => {
  it('never runs two ticks at once, goes on after a failure and stops when told', async () => {
    const logger = createLogger({ service: 'test', silent: true });
    const warnings: string[] = [];
    logger.warn = ((message: string) => (warnings.push(message), logger)) as unknown as typeof logger.warn;
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const stop = repeatEvery(
      5,
      'slow task',
      async () => {
        runs += 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await sleep(30);
        running -= 1;
        if (runs === 1) throw new Error('first run fails');
      },
      logger,
    );
    // Until the run after the failing one has begun, however slow the machine: the test is about order, not speed.
    while (runs < 2) await sleep(5);
    stop();
    const stoppedAt = runs;
    await sleep(60);
    expect(maxRunning).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(stoppedAt + 1);
    expect(warnings).toEqual(['slow task failed; retrying on the next tick']);
  });
});
