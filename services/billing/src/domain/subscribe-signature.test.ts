import { subscribeMessage } from '@gridlab/contracts';
import { signAsync } from '@noble/ed25519';
import { Keypair } from '@solana/web3.js';
import { checkSubscribeSignature } from './subscribe-signature';

const ORIGIN = 'https://api.gridlab.example';
const NOW = Date.parse('2026-11-27T10:00:00.000Z');
const wallet = Keypair.generate();
const owner = wallet.publicKey.toBase58();
const nonce = 'pay-1111111111111111111111';
const txSig = '5'.repeat(88);

async function redemption(o: { domain?: string; expiresAt?: string; txSig?: string; signer?: Keypair } = {}) {
  const message = subscribeMessage({ domain: o.domain ?? ORIGIN, ownerPubkey: owner, nonce, txSig: o.txSig ?? txSig, expiresAt: o.expiresAt ?? new Date(NOW + 600_000).toISOString() });
  const signatureBase64 = Buffer.from(await signAsync(new TextEncoder().encode(message), (o.signer ?? wallet).secretKey.slice(0, 32))).toString('base64');
  return { ownerPubkey: owner, nonce, txSig, message, signatureBase64 };
}

const codeOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('signed subscribe message', () => {
  it('has the exact documented format', () => {
    expect(subscribeMessage({ domain: ORIGIN, ownerPubkey: owner, nonce, txSig, expiresAt: '2026-11-27T10:10:00.000Z' })).toBe(
      `Gridlab API key subscribe\ndomain: ${ORIGIN}\nowner: ${owner}\nnonce: ${nonce}\ntxSig: ${txSig}\nexpires: 2026-11-27T10:10:00.000Z`,
    );
  });

  it("accepts the owner's signature of a message for this site, this payment, not expired", async () => {
    const r = await redemption();
    expect(codeOf(() => checkSubscribeSignature(r, ORIGIN, NOW))).toBeUndefined();
  });

  it('names what is wrong: another site, an expiry passed or too far ahead, another transaction, another signer, no message', async () => {
    const cases: [Awaited<ReturnType<typeof redemption>> | Record<string, unknown>, string][] = [
      [await redemption({ domain: 'https://evil.example' }), 'signature_wrong_domain'],
      [await redemption({ expiresAt: new Date(NOW).toISOString() }), 'signature_expired'],
      [await redemption({ expiresAt: new Date(NOW + 2 * 3600_000).toISOString() }), 'signature_invalid'],
      [await redemption({ expiresAt: '2026-11-27T10:10:00Z' }), 'signature_invalid'],
      [await redemption({ txSig: '4'.repeat(88) }), 'signature_invalid'],
      [await redemption({ signer: Keypair.generate() }), 'signature_invalid'],
      [{ ...(await redemption()), message: 'Gridlab API key subscribe' }, 'signature_invalid'],
      [{ ...(await redemption()), message: undefined }, 'invalid_request'],
    ];
    for (const [r, code] of cases) expect(codeOf(() => checkSubscribeSignature(r as Parameters<typeof checkSubscribeSignature>[0], ORIGIN, NOW))).toBe(code);
  });
});
