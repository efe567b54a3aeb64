import type { SessionEpochs } from './ports';
import { SessionGuard } from './session-guard';
import type { Session } from '../domain/session';

const SUB = 'sub_aaaaaaaaaaaaaaaaaaaaaa';

/** Billing's store in memory: epochs, how often they were read, and an outage switch. */
class Epochs implements SessionEpochs {
  readonly epochs = new Map<string, number>([[SUB, 0]]);
  reads = 0;
  down = false;

  async current(ids: readonly string[]): Promise<ReadonlyMap<string, number>> {
    this.reads++;
    if (this.down) throw new Error('connection refused');
    return new Map(ids.filter((id) => this.epochs.has(id)).map((id) => [id, this.epochs.get(id)!]));
  }

  async end(id: string, epoch: number): Promise<number> {
    if (this.down) throw new Error('no responders');
    const next = Math.max(this.epochs.get(id)!, epoch + 1);
    this.epochs.set(id, next);
    return next;
  }
}

const session = (epoch: number): Session => ({ sid: 's', keyHash: 'ab'.repeat(32), subscriberId: SUB, epoch, via: 'key', expiresAtMs: Number.MAX_SAFE_INTEGER });

function setup() {
  const store = new Epochs();
  const ended: [string, number][] = [];
  let now = 1_000;
  const guard = new SessionGuard(store, (id, epoch) => ended.push([id, epoch]), () => now, 2_000);
  return { store, ended, guard, advance: (ms: number) => (now += ms) };
}

describe('SessionGuard', () => {
  it('signs out every session of the subscriber at or below the epoch, and announces it', async () => {
    const { guard, ended } = setup();
    const epoch = await guard.epochOf(SUB);
    await guard.check(session(epoch));
    await guard.signOut(session(epoch));
    await expect(guard.check(session(epoch))).rejects.toMatchObject({ code: 'session_required' });
    expect(ended).toEqual([[SUB, 1]]);
    // A session begun after the sign-out carries the new epoch.
    await guard.check(session(await guard.epochOf(SUB)));
  });

  it('reads an epoch at most once per recheck interval, and at once again after it', async () => {
    const { guard, store, advance } = setup();
    await Promise.all([guard.check(session(0)), guard.check(session(0)), guard.check(session(0))]);
    expect(store.reads).toBe(1);
    await guard.check(session(0));
    expect(store.reads).toBe(1);
    // Signed out on another replica whose announcement never came: refused after the interval.
    store.epochs.set(SUB, 1);
    await guard.check(session(0));
    advance(2_000);
    await expect(guard.check(session(0))).rejects.toMatchObject({ code: 'session_required' });
  });

  it('refuses a session when the store cannot answer, and says so (503), rather than let it through', async () => {
    const { guard, store, advance } = setup();
    await guard.check(session(0));
    store.down = true;
    advance(2_000);
    await expect(guard.check(session(0))).rejects.toMatchObject({ code: 'session_check_unavailable', kind: 'unavailable' });
  });

  it('asks billing nothing to sign out a session already over (a replayed cookie makes no write)', async () => {
    const { guard, store } = setup();
    let ends = 0;
    const end = store.end.bind(store);
    store.end = async (id, epoch) => {
      ends++;
      return end(id, epoch);
    };
    await guard.signOut(session(0));
    await guard.signOut(session(0));
    await guard.signOut(session(0));
    expect(ends).toBe(1);
    // Told of nothing and the store unreadable: billing is asked (it alone can tell).
    store.down = true;
    const fresh = new SessionGuard(store, () => undefined, () => 0, 2_000);
    await expect(fresh.signOut(session(0))).rejects.toThrow('no responders');
    expect(ends).toBe(2);
  });

  it('throws when billing could not end the session, and then changes nothing', async () => {
    const { guard, store, ended } = setup();
    store.down = true;
    await expect(guard.signOut(session(0))).rejects.toThrow('no responders');
    store.down = false;
    expect(ended).toEqual([]);
    await guard.check(session(0));
  });

  it('takes an announced epoch at once, and a recheck announces what the store holds', async () => {
    const { guard, store, ended } = setup();
    await guard.check(session(0));
    guard.ended(SUB, 2);
    await expect(guard.check(session(1))).rejects.toMatchObject({ code: 'session_required' });
    store.epochs.set(SUB, 3);
    await guard.recheck([SUB, 'sub_unknownunknownunknow']);
    expect(ended).toEqual([
      [SUB, 2],
      [SUB, 3],
    ]);
    await guard.recheck([]);
    expect(store.reads).toBe(2);
  });
});
