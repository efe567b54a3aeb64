/** The billing service's parts, built and owned by the platform in the order main.ts lists them. */
import { KeyStore, newNonce } from '@gridlab/billing-store';
import { encodeEvent, serveDeclared, stopServing, type CommandHandlers } from '@gridlab/bus';
import * as contracts from '@gridlab/contracts';
import type { Platform } from '@gridlab/platform';
import { redisCheck, repeatEvery } from '@gridlab/runtime';
import { Redis } from 'ioredis';
import { BillingRepository } from './adapters/billing-repository';
import { billingMetrics } from './adapters/metrics';
import { FactPublisher } from './adapters/fact-publisher';
import { RevocationRelay } from './adapters/revocation-relay';
import { SolanaPayments } from './adapters/solana-payments';
import { Billing } from './app/billing';
import type { ServiceConfig } from './config';
import { parseLadder } from './domain/pricing';

const NONCE_RETENTION_MS = 3600_000;

/** Billing's use cases and the adapters its schedules drive. */
export interface BillingParts {
  readonly billing: Billing;
  readonly repo: BillingRepository;
  readonly facts: FactPublisher;
  readonly revocations: RevocationRelay;
}

/** The Redis every gateway reads revocation tombstones from. */
export function connectRedis(platform: Platform, config: ServiceConfig): Redis {
  const redis = platform.own('redis', new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 500 }), (r) => r.disconnect());
  redis.on('error', (error) => platform.logger.debug('redis error', { err: error }));
  platform.check('redis', redisCheck(redis));
  return redis;
}

/** Billing's use cases on its store, the chain, and what follows a commit (revocations, facts, sign-outs). */
export function createBilling(platform: Platform, config: ServiceConfig, redis: Redis): BillingParts {
  const { logger, pool, nc } = platform;
  const names = contracts.natsNames(config.NATS_PREFIX);
  const ladder = parseLadder(config.PRICE_LADDER, config.TOKEN_DECIMALS);
  const repo = new BillingRepository(pool, new KeyStore(pool, config.API_KEY_HMAC_SECRET), ladder);
  const revocations = new RevocationRelay(redis, config.REDIS_PREFIX, nc, names, repo, logger);
  const facts = new FactPublisher(nc, names, repo, logger);
  const billing = new Billing(
    repo,
    new SolanaPayments(config.SOLANA_RPC_URL, config.SOLANA_RPC_TIMEOUT_MS),
    {
      revoked: (hash, at) => revocations.deliver(hash, at),
      facts: async (list) => void (await facts.publish(list)),
      sessionsEnded: (subscriberId, epoch, at) => nc.publish(names.subjects.sessionEnded, encodeEvent('sessionEnded', { subscriberId, epoch, endedAt: at.toISOString() })),
    },
    {
      treasury: config.TREASURY_ADDRESS,
      tokenMint: config.TOKEN_MINT,
      ladder,
      paymentNonceTtlMs: config.PAYMENT_NONCE_TTL_S * 1000,
      reissueNonceTtlMs: config.REISSUE_NONCE_TTL_S * 1000,
      reclaimWindowMs: config.RECLAIM_WINDOW_S * 1000,
      publicOrigin: config.PUBLIC_ORIGIN,
      unsignedRedemption: config.UNSIGNED_REDEMPTION,
    },
    logger,
    (kind) => newNonce(kind),
  );
  return { billing, repo, facts, revocations };
}

/** Billing's NATS commands, as the table in @gridlab/contracts declares them (serveDeclared checks each both ways). */
export function serveBillingCommands(platform: Platform, config: ServiceConfig, billing: Billing): void {
  const names = contracts.natsNames(config.NATS_PREFIX);
  const handlers: CommandHandlers<'billing'> = {
    pricing: () => billing.pricing(),
    subscribeStart: (r) => billing.startSubscription(r),
    subscribeComplete: (r) => billing.completeSubscription(r),
    reissueStart: (r) => billing.startReissue(r),
    reissueComplete: (r) => billing.completeReissue(r),
    keyRevoke: async (r) => ({ revoked: await billing.revokeKey(Buffer.from(r.keyHash, 'hex'), r.reason) }),
    sessionEnd: (r) => billing.endSessions(r),
  };
  platform.own('commands', serveDeclared(platform.nc, names, 'billing', handlers, platform.logger), stopServing);
}

/** Expiries announced, the outbox relayed, expired nonces deleted, each on its timer. */
export function runSchedules(platform: Platform, config: ServiceConfig, { billing, repo, facts, revocations }: BillingParts): void {
  const counters = billingMetrics(platform.metrics);
  const every = (ms: number, name: string, task: () => Promise<unknown>): void => void platform.own(name, repeatEvery(ms, name, task, platform.logger), (stop) => stop());
  every(config.EXPIRY_SWEEP_MS, 'expiry sweep', () => billing.announceExpiries());
  every(config.FACT_RELAY_MS, 'fact relay', async () => counters.factsUnpublished.set(await facts.relay()));
  every(config.FACT_RELAY_MS, 'revocation relay', () => revocations.relay());
  // Expired nonces are deleted an hour after expiry (a late PUT meanwhile still gets 410;
  // a gateway whose clock is behind still finds a used sign-in nonce).
  every(config.EXPIRY_SWEEP_MS, 'nonce cleanup', () => repo.deleteExpiredNonces(new Date(), NONCE_RETENTION_MS));
}
