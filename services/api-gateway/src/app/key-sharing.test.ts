import type { KeyShared } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { keySharingResponder } from './key-sharing';

const AT = new Date('2026-11-24T08:00:00.000Z');

function setup(policy: KeyShared['policy'], revoke: (hash: Buffer) => Promise<boolean>) {
  const logger = createLogger({ service: 'test', silent: true });
  const logged: string[] = [];
  logger.warn = ((message: string) => (logged.push(`warn ${message}`), logger)) as unknown as typeof logger.warn;
  logger.error = ((message: string) => (logged.push(`error ${message}`), logger)) as unknown as typeof logger.error;
  const announced: KeyShared[] = [];
  const revoked: string[] = [];
  let counted = 0;
  const respond = keySharingResponder(
    { policy, windowMs: 5 * 60_000 },
    {
      counted: () => void (counted += 1),
      announce: (fact) => void announced.push(fact),
      revoke: (hash) => (revoked.push(hash.toString('hex')), revoke(hash)),
    },
    logger,
    () => AT,
  );
  return { respond, logged, announced, revoked, counted: () => counted };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('keySharingResponder', () => {
  it('under `warn` counts, logs and announces the fact, and revokes nothing', async () => {
    const s = setup('warn', async () => true);
    s.respond(Buffer.from('abcd', 'hex'), 'sub-1', 7);
    await flush();
    expect(s.counted()).toBe(1);
    expect(s.announced).toEqual([{ subscriberId: 'sub-1', distinctAddresses: 7, windowSeconds: 300, policy: 'warn', detectedAt: AT.toISOString() }]);
    expect(s.revoked).toEqual([]);
    expect(s.logged).toEqual(['warn key_sharing']);
  });

  it('under `revoke` also has the key revoked, and a failed revocation is logged without undoing the signal', async () => {
    const ok = setup('revoke', async () => true);
    ok.respond(Buffer.from('abcd', 'hex'), 'sub-2', 9);
    await flush();
    expect(ok.revoked).toEqual(['abcd']);
    expect(ok.announced[0]?.policy).toBe('revoke');
    expect(ok.logged).toEqual(['warn key_sharing', 'warn key revoked for sharing']);

    const failing = setup('revoke', async () => Promise.reject(new Error('billing unreachable')));
    failing.respond(Buffer.from('ef', 'hex'), 'sub-3', 9);
    await flush();
    expect(failing.announced).toHaveLength(1);
    expect(failing.logged).toEqual(['warn key_sharing', 'error key-sharing revocation failed; the signal stands']);
  });
});
