import { alertFieldErrors, alertFieldOf, INITIAL_ALERT_FORM, lamportsToSol, solToLamports, toAlertBody, type AlertFormState } from './alert-form';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const form = (fields: Partial<AlertFormState>): AlertFormState => ({ ...INITIAL_ALERT_FORM, ...fields });

describe('solToLamports', () => {
  it('converts whole and decimal SOL exactly, where floating point would not', () => {
    expect(solToLamports('1')).toBe(1_000_000_000);
    expect(solToLamports(' 0.1 ')).toBe(100_000_000);
    // 1.005 * 1e9 is 1004999999.9999999 in floating point.
    expect(solToLamports('1.005')).toBe(1_005_000_000);
    expect(solToLamports('.000000001')).toBe(1);
    expect(solToLamports('1000000')).toBe(1e15);
  });

  it('refuses what is not a plain amount, finer than a lamport, or beyond a safe integer', () => {
    for (const text of ['', 'abc', '-1', '1e3', '0.0000000001', '1.2.3', '9007199.254740992']) expect(solToLamports(text)).toBeNull();
  });

  it('reads back as the same decimal', () => {
    expect(lamportsToSol(290_000_000)).toBe('0.29');
    expect(lamportsToSol(1)).toBe('0.000000001');
    expect(lamportsToSol(2_500_000_000)).toBe('2.5');
  });
});

describe('toAlertBody', () => {
  it("sends the chosen kind's fields only, with the target when a URL is typed", () => {
    expect(toAlertBody(form({ kind: 'motherlode', minOre: '12.5', name: '  big pool ', minEvPerSol: '9' }))).toEqual({ ok: true, body: { kind: 'motherlode', name: 'big pool', minOre: 12.5 } });
    expect(toAlertBody(form({ kind: 'strategy_signal', strategyId: 'stg_x', targetUrl: ' https://example.com/hook ', targetFormat: 'discord' }))).toEqual({
      ok: true,
      body: { kind: 'strategy_signal', strategyId: 'stg_x', target: { url: 'https://example.com/hook', format: 'discord' } },
    });
  });

  it('takes square_ev amounts in SOL and leaves the price and squares out when empty', () => {
    expect(toAlertBody(form({ kind: 'square_ev', stakeSol: '0.29', orePriceSol: '', squares: '' }))).toEqual({
      ok: true,
      body: { kind: 'square_ev', minEvPerSol: 0.05, stakeLamports: 290_000_000, fromSlotsBeforeEnd: 20 },
    });
    expect(toAlertBody(form({ kind: 'square_ev', orePriceSol: '0.7', squares: '3, 7 24' }))).toMatchObject({ ok: true, body: { orePriceLamports: 700_000_000, squares: [3, 7, 24] } });
  });

  it('says at the input when a SOL amount cannot be converted exactly, before any request', () => {
    expect(toAlertBody(form({ kind: 'square_ev', stakeSol: '0.0000000001', orePriceSol: 'cheap' }))).toEqual({
      ok: false,
      errors: { stakeSol: expect.stringContaining('at most 9 decimals'), orePriceSol: expect.stringContaining('an amount of SOL') },
    });
  });

  it('splits wallets and keeps the triggers in their order; event filters compare numbers or names', () => {
    expect(toAlertBody(form({ kind: 'wallet', addresses: `${WALLET}\n  ${WALLET.slice(1)}x,`, on: ['motherlode', 'deploy'] }))).toEqual({
      ok: true,
      body: { kind: 'wallet', addresses: [WALLET, `${WALLET.slice(1)}x`], on: ['deploy', 'motherlode'] },
    });
    expect(
      toAlertBody(form({ kind: 'event', eventKind: 'subscription', filters: [{ field: 'activeSubs', op: '>=', value: '10' }, { field: 'plan', op: '==', value: 'annual' }] })),
    ).toEqual({ ok: true, body: { kind: 'event', eventKind: 'subscription', filters: [{ field: 'activeSubs', op: '>=', value: 10 }, { field: 'plan', op: '==', value: 'annual' }] } });
  });

  it('passes text that is not a number through, for the API to name', () => {
    expect(toAlertBody(form({ minOre: 'lots' }))).toEqual({ ok: true, body: { kind: 'motherlode', minOre: 'lots' } });
  });
});

describe('the API field errors', () => {
  it('land at the input the field is typed in', () => {
    expect(alertFieldOf('/minOre')).toBe('minOre');
    expect(alertFieldOf('/stakeLamports')).toBe('stakeSol');
    expect(alertFieldOf('/orePriceLamports')).toBe('orePriceSol');
    expect(alertFieldOf('/target/url')).toBe('targetUrl');
    expect(alertFieldOf('/target')).toBe('targetUrl');
    expect(alertFieldOf('/target/format')).toBe('targetFormat');
    expect(alertFieldOf('/filters/1/value')).toBe('filters/1/value');
    expect(alertFieldOf('/filters/1')).toBe('filters/1/field');
    expect(alertFieldOf('/squares/2')).toBe('squares');
    expect(alertFieldOf('/kind')).toBe('kind');
    expect(alertFieldOf('')).toBe('form');
    expect(alertFieldOf('/payload')).toBe('form');
  });

  it('name the element of a list, join several at one input, and keep the path of a field not shown', () => {
    expect(
      alertFieldErrors([
        { path: '/addresses/1', message: 'must be a base58 Solana public key (32 bytes)' },
        { path: '/addresses/2', message: `repeats ${WALLET}` },
        { path: '/minOre', message: 'is required' },
        { path: '/payload', message: 'is not an accepted property' },
        { path: '', message: 'an API key may own at most 20 alert rules; delete one first' },
      ]),
    ).toEqual({
      addresses: `address 2 must be a base58 Solana public key (32 bytes); address 3 repeats ${WALLET}`,
      minOre: 'is required',
      form: '/payload: is not an accepted property; an API key may own at most 20 alert rules; delete one first',
    });
  });
});
