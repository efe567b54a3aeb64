import { createLogger } from '@gridlab/logger';
import { Resources } from './resources';

const logger = createLogger({ service: 'test', silent: true });

describe('Resources', () => {
  it('returns what it owns and releases it last acquired first', async () => {
    const released: string[] = [];
    const resources = new Resources(logger);
    const pool = resources.own('pool', { name: 'pool' }, (p) => void released.push(p.name));
    resources.own('connection', 'connection', async (c) => {
      await new Promise((r) => setTimeout(r, 10));
      released.push(c);
    });
    resources.own('timer', 'timer', (t) => void released.push(t));
    expect(pool).toEqual({ name: 'pool' });
    await resources.stop();
    expect(released).toEqual(['timer', 'connection', 'pool']);
  });

  it('goes on after a failing release, logs it, and rejects with the failure once all ran', async () => {
    const released: string[] = [];
    const errors = jest.spyOn(logger, 'error');
    const resources = new Resources(logger);
    resources.own('first', 'first', (r) => void released.push(r));
    resources.own('broken', 'broken', () => Promise.reject(new Error('cannot close')));
    resources.own('last', 'last', (r) => void released.push(r));
    await expect(resources.stop()).rejects.toThrow('cannot close');
    expect(released).toEqual(['last', 'first']);
    expect(errors).toHaveBeenCalledWith('shutdown step failed', expect.objectContaining({ step: 'broken' }));
    errors.mockRestore();
  });

  it('releases each resource once however often stop is called', async () => {
    const release = jest.fn();
    const resources = new Resources(logger);
    resources.own('once', 1, release);
    const first = resources.stop();
    expect(resources.stop()).toBe(first);
    await first;
    await resources.stop();
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('aborts its signal as stopping begins, before any release', async () => {
    const resources = new Resources(logger);
    let abortedAtRelease: boolean | undefined;
    resources.own('watcher', resources.signal, (signal) => void (abortedAtRelease = signal.aborted));
    expect(resources.signal.aborted).toBe(false);
    await resources.stop();
    expect(abortedAtRelease).toBe(true);
  });

  it('releases at once what is acquired after stopping began, throws, and stop waits for that release', async () => {
    const resources = new Resources(logger);
    resources.own('slow', 'slow', () => new Promise((r) => setTimeout(r, 20)));
    const stopping = resources.stop();
    let released = false;
    expect(() =>
      resources.own('late lock', 'lock', async () => {
        await new Promise((r) => setTimeout(r, 40));
        released = true;
      }),
    ).toThrow(expect.objectContaining({ code: 'stopping' }) as Error);
    await stopping;
    expect(released).toBe(true);
  });
});
