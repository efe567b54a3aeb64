/**
 * A local Solana JSON-RPC endpoint (HTTP + WebSocket) backed by LiteSVM, running the
 * ORE v3 game with a seeded miner model and hosting the payment token. A development
 * and test tool: never part of a production deployment.
 */
export { startDevnet, type Devnet, type DevnetDeploy, type DevnetOptions } from './devnet';
export { PAYMENT_DECIMALS } from './token';
