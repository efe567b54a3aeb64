import {
  issuedKeySchema,
  pricingSchema,
  reissueCompleteRequestSchema,
  reissueStartRequestSchema,
  reissueStartSchema,
  subscribeCompleteRequestSchema,
  subscribeStartRequestSchema,
  subscriptionStartSchema,
} from '../billing';
import { TIMEOUT, UNAVAILABLE, operation, problem } from './operation';

// Pricing, subscriptions and key rotation: public (no key yet), limited per client
// address, answered by billing over NATS.


export const billingOperations = {
  getPricing: operation({
    method: 'get',
    path: '/api/v1/pricing',
    tags: ['billing'],
    summary: "Current price ladder, treasury and payment token",
    access: 'public',
    cost: 1,
    responses: { 200: { description: 'Pricing', content: { 'application/json': pricingSchema } }, 503: UNAVAILABLE, 504: TIMEOUT },
  }),
  startSubscription: operation({
    method: 'post',
    path: '/api/v1/subscribe',
    tags: ['billing'],
    summary: "Start a subscription: a 15-minute payment nonce with the price locked in",
    description: "plan monthly (default) or annual (12 months for 3x); referralCode = an active subscriber id of another wallet, 10% off monthly (ignored for annual); requireSignature (boolean) = only a PUT signed by the owner redeems this nonce (an unsigned one answers 403 signature_required), so nobody who copies the payment from the chain can redeem it first. It defaults to true, and false answers 400 naming the field, unless the operator runs billing in the seed-compatible mode (UNSIGNED_REDEMPTION=first_subscription), where it defaults to false.",
    access: 'public',
    cost: 1,
    body: subscribeStartRequestSchema,
    responses: { 200: { description: 'Subscription start', content: { 'application/json': subscriptionStartSchema } }, 503: UNAVAILABLE, 504: TIMEOUT },
  }),
  completeSubscription: operation({
    method: 'put',
    path: '/api/v1/subscribe',
    tags: ['billing'],
    summary: "Complete a subscription with a confirmed transfer carrying the nonce as memo",
    description: "Checks in order: nonce exists for this owner (404 nonce_not_found), the signature when one is sent (below), not consumed (409 nonce_consumed), an unsigned PUT allowed (403 signature_required, below), not expired (410 nonce_expired), txSig unused (409 tx_already_used), transaction visible at confirmed (409 payment_not_confirmed, Retry-After 2), then the chain checks (422 payment_invalid, detail names the check: transaction_failed, memo, owner_signature, treasury_credit, owner_debit, block_time). RPC unreachable: 502 chain_unavailable. On success the previous key of the subscriber is revoked at once.\n\nUnsigned redemption (the three fields): nonce, txSig and ownerPubkey are public on chain once the payment lands, so anyone watching the treasury could send them. By default an unsigned PUT answers 403 signature_required, consuming nothing (every nonce requires the signature). In the seed-compatible mode (billing UNSIGNED_REDEMPTION=first_subscription) it is accepted only for a first subscription: it answers 403 signature_required, consuming nothing (the owner can still redeem the payment signed), when the nonce was started with requireSignature: true, or when the owner already holds a working key (not revoked, paid period not ended), which it would otherwise replace. So an unsigned PUT never takes a working key away.\n\nSigned redemption (every Gridlab client signs): add message and signatureBase64, the owner wallet's ed25519 signature (base64 of 64 bytes) of the UTF-8 bytes of message, which is exactly \"Gridlab API key subscribe\\ndomain: <origin>\\nowner: <ownerPubkey>\\nnonce: <nonce>\\ntxSig: <txSig>\\nexpires: <ISO 8601 UTC, toISOString>\" (lines joined by a line feed, no trailing newline). domain is the API's public origin (the setting PUBLIC_ORIGIN, e.g. https://api.gridlab.example; http://127.0.0.1:8080 by default). The signature is checked before anything else: a message that is not of this form, names another owner, nonce or txSig than the body, expires more than an hour ahead, or is not signed by ownerPubkey answers 422 signature_invalid; one made for another domain 422 signature_wrong_domain; one past its expiry 422 signature_expired; message without signatureBase64 or the reverse, 400. A signed PUT for a nonce that is already consumed by the same txSig (a reclaim) does not pay again: it revokes the key that redemption issued and returns a new one to the signer, so a key is never lost to a reply lost after the payment committed (a 503/504: sign the message again, with a new expires, and retry). A reclaim needs a signature the nonce has not seen: the body that redeemed it, replayed by whoever saw it, answers 409 signature_used. A reclaim can be made once (then 409 reclaim_used) and within RECLAIM_WINDOW (24 h by default) of the redemption, and not after a successful PUT /reissue of the owner (410 reclaim_expired in both cases: use the signed POST/PUT /reissue flow). A consumed nonce named with another txSig answers 409 nonce_consumed.",
    access: 'public',
    cost: 1,
    body: subscribeCompleteRequestSchema,
    responses: {
      200: { description: 'Issued key (the plaintext key is shown only here)', content: { 'application/json': issuedKeySchema } },
      403: problem('signature_required (an unsigned PUT for a nonce started with requireSignature, or for an owner holding a working key; nothing consumed)'),
      404: problem('nonce_not_found'),
      409: problem('nonce_consumed | tx_already_used | payment_not_confirmed (Retry-After) | reclaim_used | signature_used'),
      410: problem('nonce_expired | reclaim_expired'),
      422: problem('payment_invalid | signature_invalid | signature_wrong_domain | signature_expired'),
      502: problem('chain_unavailable'),
      503: UNAVAILABLE,
      504: TIMEOUT,
    },
  }),
  startReissue: operation({
    method: 'post',
    path: '/api/v1/reissue',
    tags: ['billing'],
    summary: "Start a key rotation: a 10-minute nonce and the message to sign",
    description: "message is exactly \"Gridlab API key reissue\\ndomain: <origin>\\nowner: <ownerPubkey>\\nnonce: <nonce>\\nexpires: <expiresAt>\" (lines joined by a line feed), domain the API's public origin (PUBLIC_ORIGIN). A client builds this text itself from nonce, expiresAt and the site it talks to, and signs only if message is exactly that: a look-alike site relaying this service's message (which names this site) gets no signature. Gridlab's clients (@gridlab/client reissue(), gridlab reissue, the dashboard) do.",
    access: 'public',
    cost: 1,
    body: reissueStartRequestSchema,
    responses: {
      200: { description: 'Reissue start', content: { 'application/json': reissueStartSchema } },
      404: problem('subscription_not_found'),
      503: UNAVAILABLE,
      504: TIMEOUT,
    },
  }),
  completeReissue: operation({
    method: 'put',
    path: '/api/v1/reissue',
    tags: ['billing'],
    summary: "Complete a key rotation with the wallet's ed25519 signature of the message",
    description: "The old key gets 401 on every gateway replica from the moment this answers.",
    access: 'public',
    cost: 1,
    body: reissueCompleteRequestSchema,
    responses: {
      200: { description: 'Issued key', content: { 'application/json': issuedKeySchema } },
      404: problem('nonce_not_found'),
      409: problem('nonce_consumed'),
      410: problem('nonce_expired'),
      422: problem('signature_invalid'),
      503: UNAVAILABLE,
      504: TIMEOUT,
    },
  }),
} as const;
