/** What the owner's signed subscribe message names. */
export interface SubscribeMessageFields {
  /** The API's public origin, e.g. `https://api.gridlab.example` (the origin of the client's baseUrl). */
  readonly domain: string;
  readonly ownerPubkey: string;
  readonly nonce: string;
  readonly txSig: string;
  /** ISO 8601 (toISOString); the service refuses the signature from then on, and more than an hour ahead. */
  readonly expiresAt: string;
}

/**
 * The message the owner signs to redeem a subscription payment (PUT /subscribe
 * `message` and `signatureBase64`): it names the site, the nonce, the transaction and an
 * expiry, so a front-runner who copies the public nonce, transaction and owner from the
 * chain cannot sign it, and a signature made for another site is useless here. The same
 * text as @gridlab/contracts' subscribeMessage.
 */
export function subscribeMessage(f: SubscribeMessageFields): string {
  return `Gridlab API key subscribe\ndomain: ${f.domain}\nowner: ${f.ownerPubkey}\nnonce: ${f.nonce}\ntxSig: ${f.txSig}\nexpires: ${f.expiresAt}`;
}
