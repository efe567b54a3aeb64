/** What the reissue message a wallet signs names. */
export interface ReissueMessageFields {
  /** The API's public origin, e.g. `https://api.gridlab.example` (the origin of the client's baseUrl). */
  readonly domain: string;
  readonly ownerPubkey: string;
  readonly nonce: string;
  /** ISO 8601 (toISOString): the nonce's expiry. */
  readonly expiresAt: string;
}

/**
 * The message the owner signs to rotate the API key (PUT /reissue). A client builds it
 * itself from POST /reissue's nonce and expiry and the site it talks to, and signs only
 * when the service asked for exactly this text: a look-alike site relaying the real
 * service's message (which names the real site) gets no signature. The same text as
 * @gridlab/contracts' reissueMessage.
 */
export function reissueMessage(f: ReissueMessageFields): string {
  return `Gridlab API key reissue\ndomain: ${f.domain}\nowner: ${f.ownerPubkey}\nnonce: ${f.nonce}\nexpires: ${f.expiresAt}`;
}
