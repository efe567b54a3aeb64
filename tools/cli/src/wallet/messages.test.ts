/**
 * The texts a wallet signs are written twice: in @gridlab/contracts, which billing checks
 * them with, and in @gridlab/client, which is published without dependencies and builds
 * them for its users. The CLI signs with the client's: both must be the same text.
 */
import { reissueMessage as clientReissue, subscribeMessage as clientSubscribe } from '@gridlab/client';
import { reissueMessage, subscribeMessage } from '@gridlab/contracts';

const fields = {
  domain: 'https://api.gridlab.example',
  ownerPubkey: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  nonce: 'pay-1111111111111111111111',
  txSig: '5'.repeat(88),
  expiresAt: '2026-11-28T19:00:00.000Z',
};

describe('the messages a wallet signs', () => {
  it('are the same text in @gridlab/client and in @gridlab/contracts', () => {
    expect(clientSubscribe(fields)).toBe(subscribeMessage(fields));
    const reissue = { domain: fields.domain, ownerPubkey: fields.ownerPubkey, nonce: 'rei-1111111111111111111111', expiresAt: fields.expiresAt };
    expect(clientReissue(reissue)).toBe(reissueMessage(reissue));
  });
});
