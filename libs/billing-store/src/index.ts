/**
 * Billing's data: the `billing` schema's migrations, subscribers and API keys (only
 * HMAC hashes stored), the key-issuing functions used by the billing service and
 * the operator CLI (`gridlab admin grant|revoke`), and the used sign-in nonces the
 * gateway records.
 */
import { join } from 'node:path';

export { KeyStore, type KeyRecord, type IssuedKey, type IssueReason, type Period } from './key-store';
export { hashApiKey } from './key-hash';
export { BillingFactsSource, type StoredFact } from './facts-reader';
export { SiwsNonceLedger } from './siws-nonces';
export { billingReads } from './reads';
export { newApiKey, newSubscriberId, newNonce, type RandomInt } from './ids';

/** Schema owned by billing. */
export const BILLING_SCHEMA = 'billing';
/** node-pg-migrate directory of the billing schema. */
export const BILLING_MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
