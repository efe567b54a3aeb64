/**
 * Outgoing webhooks: Standard Webhooks 1.0 signatures and secrets, the policy of which
 * targets may be called, and one delivery that keeps to it.
 */
export { newSecret, isSecret, signDelivery, type SignedHeaders } from './signing';
export { refusedAddress } from './address-policy';
export { checkTarget, resolveTarget, type Lookup, type PinnedAddress, type ResolvedTarget, type TargetCheck, type TargetPolicy } from './target';
export { deliver, type DeliveryOptions, type DeliveryResult } from './deliver';
