/**
 * Test isolation against the real servers: each run gets its own PostgreSQL database,
 * NATS subject/stream prefix and Redis key prefix, and removes them afterwards.
 */
export { createTestDatabase, type TestDatabase } from './database';
export { migrationsThrough, type EarlierMigrations } from './migrations';
export { testNamespace, type TestNamespace } from './namespace';
export { syntheticRounds, comparableRounds, type SyntheticOptions } from './synthetic-rounds';
export { provableRound, type RoundDeploys } from './provable';
export { roundV3AtOffsets } from './round-at-offsets';
export { runCli, startCli, type CliResult, type RunningCli } from './cli';
export { WORKSPACE_ROOT } from './paths';
export { freePort, startService, startNode, answersOk, type ServiceProcess, type ProcessUser, type StartOptions } from './processes';
export { startTcpProxy, type TcpProxy } from './tcp-proxy';
export { startNotifierFor, startWebhookReceiver, type WebhookReceipt, type WebhookReceiver } from './webhook-receiver';
export { closeWeb3Connection } from './web3';
export { ackedThrough } from './jetstream';
export { startNatsCluster, type NatsCluster } from './nats-cluster';
export { startPostgresServer, startRedisServer, startNatsServer, type Engine } from './engines';
export { installPacked, linkDependency } from './packages';
export { TEST_SESSION_SECRET, startLocalSuite, suiteChildren, listeningPorts, waitUntil, markdownExamples, runTypeScript, typeCheck, writeExampleProject, localSuiteEnv, startKeyedSuite, type KeyedSuite, type LocalSuite, type LocalSuiteEnv } from './suite';
