import { readFileSync, writeFileSync } from 'node:fs';
import { parseDocument, stringify } from 'yaml';
import * as c from './libs/contracts/src/index';
const path = '/work/main/docs/asyncapi.yaml';
const doc = parseDocument(readFileSync(path, 'utf8'));
const n = c.natsNames('');
const hdr = { type: 'object', properties: { 'Nats-Msg-Id': { type: 'string' }, 'Gridlab-Correlation-Id': { type: 'string' } } };
const corr = { type: 'object', properties: { 'Gridlab-Correlation-Id': { type: 'string' } } };
const msgs: Record<string, [unknown, object, string]> = {
  SubscriptionFact: [c.subscriptionFactSchema, hdr, 'A subscription was activated, renewed or expired (no wallet key).'],
  TierFact: [c.tierFactSchema, hdr, 'The active subscription count crossed a pricing threshold.'],
  PricingRequest: [{ type: 'object', additionalProperties: false, properties: {} }, corr, 'Request for the current price sheet.'],
  SubscribeStartRequest: [c.subscribeStartRequestSchema, corr, 'POST /subscribe body.'],
  SubscribeCompleteRequest: [c.subscribeCompleteRequestSchema, corr, 'PUT /subscribe body.'],
  ReissueStartRequest: [c.reissueStartRequestSchema, corr, 'POST /reissue body.'],
  ReissueCompleteRequest: [c.reissueCompleteRequestSchema, corr, 'PUT /reissue body.'],
  KeyRevokeRequest: [c.keyRevokeRequestSchema, corr, 'Revoke one key by its HMAC hash (key-sharing policy revoke).'],
  CommandReply: [c.commandReplySchema, {}, 'Every billing reply: {ok:true,result} with the command result (Pricing, SubscriptionStart, IssuedKey, ReissueStart or KeyRevokeReply schema), or {ok:false,error} with the HTTP problem to relay.'],
  Pricing: [c.pricingSchema, {}, 'Result of billing.pricing.get.'],
  SubscriptionStart: [c.subscriptionStartSchema, {}, 'Result of billing.subscription.start.'],
  IssuedKey: [c.issuedKeySchema, {}, 'Result of billing.subscription.complete and billing.key.reissue-complete.'],
  ReissueStart: [c.reissueStartSchema, {}, 'Result of billing.key.reissue-start.'],
  KeyRevokeReply: [c.keyRevokeReplySchema, {}, 'Result of billing.key.revoke.'],
};
for (const [name, [payload, headers, description]] of Object.entries(msgs)) {
  doc.setIn(['components', 'messages', name], doc.createNode({ name, description, ...(Object.keys(headers).length ? { headers } : {}), payload }));
}
const channels: [string, string, string, string][] = [
  ['subscriptionChanged', n.subjects.subscriptionChanged, 'SubscriptionFact', 'JetStream stream BILLING; Nats-Msg-Id = factId; published after commit from billing\'s outbox (re-published until acknowledged).'],
  ['tierChanged', n.subjects.tierChanged, 'TierFact', 'JetStream stream BILLING; Nats-Msg-Id = factId.'],
  ['pricing', n.commands.pricing, 'PricingRequest', 'Request/reply, queue group billing.'],
  ['subscribeStart', n.commands.subscribeStart, 'SubscribeStartRequest', 'Request/reply, queue group billing.'],
  ['subscribeComplete', n.commands.subscribeComplete, 'SubscribeCompleteRequest', 'Request/reply, queue group billing.'],
  ['reissueStart', n.commands.reissueStart, 'ReissueStartRequest', 'Request/reply, queue group billing.'],
  ['reissueComplete', n.commands.reissueComplete, 'ReissueCompleteRequest', 'Request/reply, queue group billing.'],
  ['keyRevoke', n.commands.keyRevoke, 'KeyRevokeRequest', 'Request/reply, queue group billing.'],
];
for (const [id, address, msg, description] of channels) {
  doc.setIn(['channels', id], doc.createNode({ address, description, messages: { [msg[0]!.toLowerCase() + msg.slice(1)]: { $ref: `#/components/messages/${msg}` } } }));
}
doc.setIn(['channels', 'commandReply'], doc.createNode({ address: null, description: 'The inbox of a billing request (NATS reply subject).', messages: { commandReply: { $ref: '#/components/messages/CommandReply' } } }));
doc.setIn(['operations', 'publishSubscriptionChanged'], doc.createNode({ action: 'send', channel: { $ref: '#/channels/subscriptionChanged' }, summary: 'billing publishes subscription facts (consumed by event-log)' }));
doc.setIn(['operations', 'publishTierChanged'], doc.createNode({ action: 'send', channel: { $ref: '#/channels/tierChanged' }, summary: 'billing publishes tier crossings (consumed by event-log)' }));
for (const [id] of channels.slice(2)) {
  doc.setIn(['operations', `receive${id[0]!.toUpperCase()}${id.slice(1)}`], doc.createNode({ action: 'receive', channel: { $ref: `#/channels/${id}` }, summary: `billing answers ${id} requests (api-gateway sends them)`, reply: { channel: { $ref: '#/channels/commandReply' } } }));
}
writeFileSync(path, doc.toString({ lineWidth: 120 }));
