import { checkPayment, type ExpectedPayment, type PaymentTx } from './verify-payment';

const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const OWNER = 'Own1111111111111111111111111111111111111111';
const TREASURY = 'Tre1111111111111111111111111111111111111111';
const MINT = 'Min1111111111111111111111111111111111111111';
const NONCE = 'pay-2222222222222222222222';
const created = new Date('2026-11-23T10:00:00.000Z');

const expected: ExpectedPayment = {
  nonce: NONCE,
  ownerPubkey: OWNER,
  treasury: TREASURY,
  mint: MINT,
  amountBaseUnits: 1000n,
  nonceCreatedAt: created,
};

function tx(overrides: Partial<PaymentTx> = {}): PaymentTx {
  return {
    slot: 10,
    blockTime: created.getTime() / 1000 + 5,
    err: null,
    signers: [OWNER],
    instructions: [
      { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', data: new Uint8Array([12]) },
      { programId: MEMO, data: new TextEncoder().encode(NONCE) },
    ],
    preTokenBalances: [
      { accountIndex: 1, mint: MINT, owner: OWNER, amount: '5000' },
      { accountIndex: 2, mint: MINT, owner: TREASURY, amount: '0' },
    ],
    postTokenBalances: [
      { accountIndex: 1, mint: MINT, owner: OWNER, amount: '4000' },
      { accountIndex: 2, mint: MINT, owner: TREASURY, amount: '1000' },
    ],
    ...overrides,
  };
}

describe('payment checks', () => {
  it('accepts an exact payment with the memo, signed by the owner', () => {
    expect(checkPayment(tx(), expected)).toBeNull();
    // The legacy memo program id works too, and overpaying is fine.
    const v1 = tx({ instructions: [{ programId: 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo', data: new TextEncoder().encode(NONCE) }] });
    expect(checkPayment(v1, expected)).toBeNull();
    expect(checkPayment(tx(), { ...expected, amountBaseUnits: 999n })).toBeNull();
  });

  it('names the first failing check, in SPEC order', () => {
    expect(checkPayment(tx({ err: { InstructionError: [0, 'Custom'] } }), expected)?.check).toBe('transaction_failed');
    expect(checkPayment(tx({ instructions: [] }), expected)?.check).toBe('memo');
    expect(checkPayment(tx({ instructions: [{ programId: MEMO, data: new TextEncoder().encode(`${NONCE}x`) }] }), expected)?.check).toBe('memo');
    expect(
      checkPayment(tx({ instructions: [{ programId: 'Some1111111111111111111111111111111111111111', data: new TextEncoder().encode(NONCE) }] }), expected)
        ?.check,
    ).toBe('memo');
    expect(checkPayment(tx({ signers: ['Oth1111111111111111111111111111111111111111'] }), expected)?.check).toBe('owner_signature');
    expect(checkPayment(tx(), { ...expected, amountBaseUnits: 1001n })?.check).toBe('treasury_credit');
    expect(checkPayment(tx(), { ...expected, mint: 'Oth1111111111111111111111111111111111111111' })?.check).toBe('treasury_credit');
    expect(checkPayment(tx(), { ...expected, treasury: 'Oth1111111111111111111111111111111111111111' })?.check).toBe('treasury_credit');
    expect(checkPayment(tx({ blockTime: created.getTime() / 1000 - 61 }), expected)?.check).toBe('block_time');
    expect(checkPayment(tx({ blockTime: created.getTime() / 1000 - 60 }), expected)).toBeNull();
    expect(checkPayment(tx({ blockTime: null }), expected)?.check).toBe('block_time');
  });

  it("requires the owner's own accounts to pay, not a third party's", () => {
    const thirdPartyPays = tx({
      preTokenBalances: [
        { accountIndex: 1, mint: MINT, owner: 'Oth1111111111111111111111111111111111111111', amount: '5000' },
        { accountIndex: 2, mint: MINT, owner: TREASURY, amount: '0' },
      ],
      postTokenBalances: [
        { accountIndex: 1, mint: MINT, owner: 'Oth1111111111111111111111111111111111111111', amount: '4000' },
        { accountIndex: 2, mint: MINT, owner: TREASURY, amount: '1000' },
      ],
    });
    expect(checkPayment(thirdPartyPays, expected)).toMatchObject({ check: 'owner_debit', detail: expect.stringMatching(/paid 0 base units/) });
  });

  it('counts a treasury account that did not exist before as starting from 0', () => {
    const fresh = tx({ preTokenBalances: [{ accountIndex: 1, mint: MINT, owner: OWNER, amount: '5000' }] });
    expect(checkPayment(fresh, expected)).toBeNull();
  });
});
