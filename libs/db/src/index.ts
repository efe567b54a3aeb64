/**
 * PostgreSQL access shared by every service: pools, transactions, per-service schema
 * migrations (node-pg-migrate) and the leader lock for single-writer services.
 */
export { createPool, withTransaction, type Pool, type PoolClient, type PoolOptions } from './pool';
export { runMigrations, type MigrateOptions } from './migrate';
export { acquireLeaderLock, type LeaderLock, type LeaderLockOptions } from './leader-lock';
