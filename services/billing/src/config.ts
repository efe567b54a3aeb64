import { int, loadConfig, oneOf, serviceFields, str, type Env } from '@gridlab/config';

const PUBKEY = { pattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, format: 'a base58 public key' };

/** The billing service's settings; the only place it reads the environment. */
const SCHEMA = {
  ...serviceFields(9102),
  SOLANA_RPC_URL: str({ default: 'http://127.0.0.1:8899', doc: 'Solana JSON-RPC endpoint used to verify payments' }),
  SOLANA_RPC_TIMEOUT_MS: int({ default: 5000, min: 100, max: 60_000, doc: 'Deadline of one RPC call' }),
  TREASURY_ADDRESS: str({
    ...PUBKEY,
    // The devnet's treasury (the ORE program's ["treasury"] PDA); production sets its own wallet.
    default: '45db2FSR4mcXdSVVZbKbwojU6uYDpMyhpEi7cC8nHaWG',
    doc: 'Wallet that receives payments (owner of the treasury token account)',
  }),
  TOKEN_MINT: str({ ...PUBKEY, default: 'oreoU2P8bN6jkk3jbaiVxYnG1dCXcYxwhwyK9jSybcp', doc: 'Mint of the payment token' }),
  TOKEN_DECIMALS: int({ default: 11, min: 0, max: 18, doc: 'Decimals of the payment token' }),
  PRICE_LADDER: str({
    default: '0:0.1,100:0.2,250:0.4,500:0.8',
    doc: 'Monthly price in tokens from each active-subscription count on: <count>:<price>,...',
  }),
  PAYMENT_NONCE_TTL_S: int({ default: 900, min: 60, max: 86_400, doc: 'Lifetime of a subscribe nonce' }),
  REISSUE_NONCE_TTL_S: int({ default: 600, min: 60, max: 86_400, doc: 'Lifetime of a reissue nonce' }),
  RECLAIM_WINDOW_S: int({
    default: 86_400,
    min: 60,
    max: 30 * 86_400,
    doc: 'How long after a payment is redeemed a signed PUT /subscribe of it may take the key back (front-running, lost replies)',
  }),
  UNSIGNED_REDEMPTION: oneOf(['refuse', 'first_subscription'] as const, {
    default: 'refuse',
    doc:
      "Whether PUT /subscribe may redeem a payment without the owner's signature. refuse: every payment nonce needs the signed message " +
      '(POST /subscribe requireSignature: false is refused). first_subscription: the seed-compatible mode, where a nonce started ' +
      'without requireSignature redeems unsigned for an owner holding no working key (anyone watching the treasury can front-run it)',
  }),
  PUBLIC_ORIGIN: str({
    default: 'http://127.0.0.1:8080',
    pattern: /^https?:\/\/[^/\s?#]+$/,
    format: 'an origin: scheme://host[:port], no path',
    doc: 'Public origin of the API (what clients call): a signed PUT /subscribe message must name it as its domain',
  }),
  EXPIRY_SWEEP_MS: int({ default: 30_000, min: 100, max: 3_600_000, doc: 'How often ended subscriptions are announced' }),
  FACT_RELAY_MS: int({ default: 5_000, min: 100, max: 3_600_000, doc: 'How often unpublished facts are re-published' }),
  API_KEY_HMAC_SECRET: str({ secret: true, minLength: 32, doc: 'Server secret of the API key HMAC (shared with the gateway and the CLI)' }),
  REDIS_URL: str({ default: 'redis://127.0.0.1:6379', secret: true, doc: 'Redis of the gateways (revocation tombstones)' }),
  REDIS_PREFIX: str({ default: 'gridlab:', minLength: 0, doc: 'Key prefix the gateways use' }),
};

export type ServiceConfig = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
