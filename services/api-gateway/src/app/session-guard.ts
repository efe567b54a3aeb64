import { AuthError, UnavailableError } from '@gridlab/errors';
import type { SessionEpochs } from './ports';
import type { Session } from '../domain/session';

/** How long a subscriber's epoch read from the store is trusted before it is read again. */
const SESSION_RECHECK_MS = 2_000;
/** Epochs remembered per process before the oldest reads are forgotten. */
const MAX_KNOWN = 100_000;

interface Known {
  readonly epoch: number;
  readonly checkedAtMs: number;
}

/**
 * Whether a dashboard session is still on: its epoch must not be below its subscriber's
 * epoch in billing's store. An epoch read is trusted for SESSION_RECHECK_MS; a sign-out
 * anywhere is announced (`ended`) at once, so the re-read only bounds what a lost
 * announcement costs. When the store cannot answer, a session is refused (503), never
 * let through on a guess. `onEnded` closes what the ended sessions hold open.
 */
export class SessionGuard {
  private readonly known = new Map<string, Known>();
  private readonly reading = new Map<string, Promise<number>>();

  constructor(
    private readonly epochs: SessionEpochs,
    private readonly onEnded: (subscriberId: string, epoch: number) => void,
    private readonly now: () => number = Date.now,
    private readonly recheckMs = SESSION_RECHECK_MS,
  ) {}

  /** The subscriber's epoch now, read from the store (a session beginning carries it). */
  epochOf(subscriberId: string): Promise<number> {
    return this.read(subscriberId);
  }

  /** 401 session_required when the session was signed out; 503 when that cannot be told. */
  async check(session: Session): Promise<void> {
    if (await this.isOver(session)) throw new AuthError('session_required', 'this session was signed out; sign in again');
  }

  /**
   * Sign-out: billing raises the subscriber's epoch past the session's, durably; then this
   * replica closes what the subscriber's ended sessions hold. A session already over asks
   * billing nothing (a replayed cookie cannot make it write). Throws when billing did not
   * confirm it (the session may still work elsewhere).
   */
  async signOut(session: Session): Promise<void> {
    if (await this.isOver(session).catch(() => false)) return;
    this.ended(session.subscriberId, await this.epochs.end(session.subscriberId, session.epoch));
  }

  /** A subscriber's epoch, announced or read: sessions below it are refused and closed. */
  ended(subscriberId: string, epoch: number): void {
    const known = this.known.get(subscriberId);
    if (known === undefined || epoch >= known.epoch) this.remember(subscriberId, epoch);
    this.onEnded(subscriberId, epoch);
  }

  /** Reads the epochs of these subscribers again (those with streams open), announcing each. */
  async recheck(subscriberIds: readonly string[]): Promise<void> {
    if (subscriberIds.length === 0) return;
    const epochs = await this.epochs.current(subscriberIds);
    for (const [subscriberId, epoch] of epochs) this.ended(subscriberId, epoch);
  }

  /** Whether the session's subscriber has an epoch above it (read again once the last read is older than the interval). */
  private async isOver(session: Session): Promise<boolean> {
    const known = this.known.get(session.subscriberId);
    const fresh = known !== undefined && (known.epoch > session.epoch || this.now() - known.checkedAtMs < this.recheckMs);
    return session.epoch < (fresh ? known.epoch : await this.read(session.subscriberId));
  }

  private read(subscriberId: string): Promise<number> {
    const pending = this.reading.get(subscriberId);
    if (pending !== undefined) return pending;
    const read = this.epochs
      .current([subscriberId])
      .then(
        (epochs) => {
          // An unknown subscriber has no key either: its sessions fail their key check.
          const epoch = Math.max(epochs.get(subscriberId) ?? 0, this.known.get(subscriberId)?.epoch ?? 0);
          this.remember(subscriberId, epoch);
          return epoch;
        },
        (error: unknown) => {
          throw new UnavailableError('dashboard sessions cannot be checked for a moment; try again shortly', { code: 'session_check_unavailable', retryAfterSeconds: 2, cause: error });
        },
      )
      .finally(() => this.reading.delete(subscriberId));
    this.reading.set(subscriberId, read);
    return read;
  }

  private remember(subscriberId: string, epoch: number): void {
    this.known.delete(subscriberId);
    if (this.known.size >= MAX_KNOWN) this.known.delete(this.known.keys().next().value!);
    this.known.set(subscriberId, { epoch, checkedAtMs: this.now() });
  }
}
