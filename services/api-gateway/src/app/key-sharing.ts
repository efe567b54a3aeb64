import type { KeyShared } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import type { KeySharingPorts } from './ports';

export interface KeySharingPolicy {
  /** `warn`: count, log and announce only; `revoke`: also revoke the key. */
  readonly policy: KeyShared['policy'];
  readonly windowMs: number;
}

/**
 * The gateway's answer to a key seen from more client addresses than allowed within the
 * window: count it, log it, announce it on NATS, and under the `revoke` policy have billing
 * revoke the key (a failed revocation is logged; the signal stands).
 */
export function keySharingResponder(
  { policy, windowMs }: KeySharingPolicy,
  ports: KeySharingPorts,
  logger: Logger,
  now: () => Date = () => new Date(),
): (keyHash: Buffer, subscriberId: string, distinctAddresses: number) => void {
  return (keyHash, subscriberId, distinctAddresses) => {
    ports.counted();
    logger.warn('key_sharing', { subscriberId, distinctAddresses, windowMinutes: windowMs / 60_000, policy });
    ports.announce({ subscriberId, distinctAddresses, windowSeconds: windowMs / 1000, policy, detectedAt: now().toISOString() });
    if (policy !== 'revoke') return;
    ports.revoke(keyHash).then(
      (revoked) => logger.warn('key revoked for sharing', { subscriberId, revoked }),
      (error: unknown) => logger.error('key-sharing revocation failed; the signal stands', { subscriberId, err: error }),
    );
  };
}
