import { Keypair } from '@solana/web3.js';
import { signAsync } from '@noble/ed25519';
import bs58 from 'bs58';
import { reissueMessage } from '@gridlab/contracts';
import { isValidSignature } from './reissue';

describe('reissue message and signature', () => {
  const wallet = Keypair.generate();
  const owner = wallet.publicKey.toBase58();
  const message = reissueMessage({ domain: 'https://api.gridlab.example', ownerPubkey: owner, nonce: 'rei-1111111111111111111111', expiresAt: '2026-11-23T10:00:00.000Z' });
  const sign = async (text: string, key = wallet) =>
    Buffer.from(await signAsync(new TextEncoder().encode(text), key.secretKey.slice(0, 32))).toString('base64');

  it("has SPEC 5's format with the site it was made for", () => {
    expect(message).toBe(`Gridlab API key reissue\ndomain: https://api.gridlab.example\nowner: ${owner}\nnonce: rei-1111111111111111111111\nexpires: 2026-11-23T10:00:00.000Z`);
  });

  it("accepts the owner's signature of the UTF-8 message and nothing else", async () => {
    const good = await sign(message);
    expect(isValidSignature(message, good, owner)).toBe(true);
    expect(isValidSignature(`${message} `, good, owner)).toBe(false);
    expect(isValidSignature(message, await sign(message, Keypair.generate()), owner)).toBe(false);
    const flipped = Buffer.from(good, 'base64');
    flipped[5] = flipped[5]! ^ 1;
    expect(isValidSignature(message, flipped.toString('base64'), owner)).toBe(false);
    expect(isValidSignature(message, 'not base64!', owner)).toBe(false);
    expect(isValidSignature(message, Buffer.alloc(63).toString('base64'), owner)).toBe(false);
  });
});

describe('strict (RFC 8032, not ZIP 215) verification', () => {
  it('rejects a small-order public key with the identity signature that ZIP 215 accepts for any message', async () => {
    const { verify } = await import('@noble/ed25519');
    // A = the identity point, R = the identity point, S = 0: [8](S·B − R − k·A) = 0 for every message.
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const signature = new Uint8Array(64);
    signature.set(identity, 0);
    const message = new TextEncoder().encode('Gridlab API key subscribe\nowner: x\nnonce: y');
    // The premise: permissive (ZIP 215) verification accepts this forgery...
    expect(verify(signature, message, identity, { zip215: true })).toBe(true);
    // ...and ours does not.
    expect(isValidSignature('Gridlab API key subscribe\nowner: x\nnonce: y', Buffer.from(signature).toString('base64'), bs58.encode(identity))).toBe(false);
  });
});
