import fc from 'fast-check';
import { encodeBase58 } from '@gridlab/chain';
import { isSolanaAddress, oreBaseUnits, parseRuleInput, parseRulePatch, ruleCountProblem, type ParseResult, type Rule, type RuleInput } from './rules';

const WALLET_A = 'So11111111111111111111111111111111111111112';
const WALLET_B = '11111111111111111111111111111111';
const STRATEGY = 'stg_1111111111111111111111';

function ok<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(`expected a rule, got ${JSON.stringify(result.problems)}`);
  return result.rule;
}

function problems<T>(result: ParseResult<T>): string[] {
  if (result.ok) throw new Error('expected problems, got a rule');
  return result.problems.map((p) => p.path);
}

function stored(input: RuleInput): Rule {
  return { ...input, id: 'alr_1', createdAt: '2026-01-01T00:00:00.000Z' };
}

describe('parseRuleInput', () => {
  it('reads a motherlode rule with its defaults', () => {
    expect(ok(parseRuleInput({ kind: 'motherlode', minOre: 150.5 }))).toEqual({ kind: 'motherlode', name: null, target: null, enabled: true, minOre: 150.5 });
  });

  it('trims the name and defaults the target format to standard', () => {
    const rule = ok(parseRuleInput({ kind: 'motherlode', minOre: 1, name: '  big pool ', target: { url: 'https://example.com/hook' }, enabled: false }));
    expect(rule).toMatchObject({ name: 'big pool', target: { url: 'https://example.com/hook', format: 'standard' }, enabled: false });
  });

  it('reads a square_ev rule, squares sorted, price absent meaning the production cost', () => {
    const rule = ok(parseRuleInput({ kind: 'square_ev', minEvPerSol: 0.05, stakeLamports: 100_000_000, fromSlotsBeforeEnd: 20, squares: [24, 3, 0] }));
    expect(rule).toMatchObject({ kind: 'square_ev', minEvPerSol: 0.05, stakeLamports: 100_000_000, orePriceLamports: null, fromSlotsBeforeEnd: 20, squares: [0, 3, 24] });
  });

  it('reads a wallet rule, its triggers in a fixed order', () => {
    const rule = ok(parseRuleInput({ kind: 'wallet', addresses: [WALLET_A, WALLET_B], on: ['motherlode', 'deploy'] }));
    expect(rule).toMatchObject({ addresses: [WALLET_A, WALLET_B], on: ['deploy', 'motherlode'] });
  });

  it('reads an event rule with filters on the kind\'s fields', () => {
    const rule = ok(parseRuleInput({ kind: 'event', eventKind: 'drought_broken', filters: [{ field: 'drought', op: '>=', value: 200 }, { field: 'grid', op: '==', value: 7 }] }));
    expect(rule).toMatchObject({ eventKind: 'drought_broken', filters: [{ field: 'drought', op: '>=', value: 200 }, { field: 'grid', op: '==', value: 7 }] });
    expect(ok(parseRuleInput({ kind: 'event', eventKind: 'tier', filters: [{ field: 'direction', op: '==', value: 'up' }] }))).toMatchObject({ filters: [{ field: 'direction', value: 'up' }] });
  });

  it('reads a strategy_signal rule', () => {
    expect(ok(parseRuleInput({ kind: 'strategy_signal', strategyId: STRATEGY }))).toMatchObject({ kind: 'strategy_signal', strategyId: STRATEGY });
  });

  it('rejects what is not an object, and a missing or unknown kind', () => {
    expect(problems(parseRuleInput([]))).toEqual(['']);
    expect(problems(parseRuleInput({ minOre: 1 }))).toEqual(['/kind']);
    expect(problems(parseRuleInput({ kind: 'price' }))).toEqual(['/kind']);
  });

  it('rejects unknown fields, including a field of another kind', () => {
    const result = parseRuleInput({ kind: 'motherlode', minOre: 1, stakeLamports: 5, 'a/b': 1 });
    expect(problems(result)).toEqual(['/stakeLamports', '/a~1b']);
    expect(result.ok ? '' : result.problems[0]!.message).toContain("is not a field of a 'motherlode' rule (allowed: kind, name, target, enabled, minOre)");
  });

  it('lists every problem at once, each with what is allowed', () => {
    const result = parseRuleInput({ kind: 'square_ev', minEvPerSol: -2, stakeLamports: 1.5, orePriceLamports: 0, fromSlotsBeforeEnd: 201, squares: [25, 1, 1], name: '', target: { url: 'x', format: 'teams' } });
    expect(problems(result)).toEqual(['/name', '/target/format', '/minEvPerSol', '/stakeLamports', '/orePriceLamports', '/fromSlotsBeforeEnd', '/squares/0', '/squares/2']);
    const byPath = new Map(result.ok ? [] : result.problems.map((p) => [p.path, p.message]));
    expect(byPath.get('/target/format')).toBe("must be one of 'standard', 'discord', 'slack' (default 'standard')");
    expect(byPath.get('/fromSlotsBeforeEnd')).toBe('is required: a whole number of slots from 1 to 200');
    expect(byPath.get('/squares/2')).toBe('repeats square 1');
  });

  it('bounds the stake at 1e15 lamports', () => {
    expect(parseRuleInput({ kind: 'square_ev', minEvPerSol: 0, stakeLamports: 1e15, fromSlotsBeforeEnd: 1 }).ok).toBe(true);
    expect(problems(parseRuleInput({ kind: 'square_ev', minEvPerSol: 0, stakeLamports: 1e15 + 1, fromSlotsBeforeEnd: 1 }))).toEqual(['/stakeLamports']);
  });

  it('requires minOre above zero base units and within the pool\'s range', () => {
    expect(problems(parseRuleInput({ kind: 'motherlode', minOre: 0 }))).toEqual(['/minOre']);
    expect(problems(parseRuleInput({ kind: 'motherlode', minOre: 1e-12 }))).toEqual(['/minOre']);
    expect(problems(parseRuleInput({ kind: 'motherlode', minOre: '5' }))).toEqual(['/minOre']);
    expect(problems(parseRuleInput({ kind: 'motherlode', minOre: 100_000 }))).toEqual(['/minOre']);
    expect(oreBaseUnits(0.1)).toBe(10_000_000_000);
  });

  it('checks wallet addresses as 32-byte base58 keys, at most the limit', () => {
    const result = parseRuleInput({ kind: 'wallet', addresses: [WALLET_A, 'not-base58', '1111', WALLET_A, 7], on: ['win', 'win', 'lose'] });
    expect(problems(result)).toEqual(['/addresses/1', '/addresses/2', '/addresses/3', '/addresses/4', '/on/1', '/on/2']);
    expect(problems(parseRuleInput({ kind: 'wallet', addresses: [WALLET_A, WALLET_B], on: ['win'] }, { rulesPerKey: 20, addressesPerRule: 1 }))).toEqual(['/addresses']);
    expect(problems(parseRuleInput({ kind: 'wallet', addresses: [], on: [] }))).toEqual(['/addresses', '/on']);
  });

  it('checks event filters against the fields of the chosen kind', () => {
    const result = parseRuleInput({
      kind: 'event',
      eventKind: 'big_round',
      filters: [{ field: 'drought', op: '>', value: 1 }, { field: 'multiplier', op: '!=', value: 'x' }, { field: 'winningSquare', op: '==', value: 3, extra: 1 }, 'x'],
    });
    expect(problems(result)).toEqual(['/filters/0/field', '/filters/1/op', '/filters/1/value', '/filters/2/extra', '/filters/3']);
    expect(result.ok ? '' : result.problems[0]!.message).toBe("must be a field of 'big_round' events: roundId, deployedSol, thresholdSol, multiplier, winningSquare, totalMiners");
    expect(problems(parseRuleInput({ kind: 'event', eventKind: 'tier', filters: [{ field: 'direction', op: '>', value: 'sideways' }] }))).toEqual(['/filters/0/op', '/filters/0/value']);
    expect(problems(parseRuleInput({ kind: 'event', eventKind: 'nope' }))).toEqual(['/eventKind']);
  });

  it('checks the strategy id\'s form', () => {
    expect(problems(parseRuleInput({ kind: 'strategy_signal', strategyId: 'stg_0000000000000000000000' }))).toEqual(['/strategyId']);
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ kind: fc.constantFrom('motherlode', 'square_ev', 'wallet', 'event', 'strategy_signal') }, { requiredKeys: [] }).chain((head) => fc.dictionary(fc.constantFrom('minOre', 'minEvPerSol', 'stakeLamports', 'orePriceLamports', 'fromSlotsBeforeEnd', 'squares', 'addresses', 'on', 'eventKind', 'filters', 'strategyId', 'name', 'target', 'enabled', 'x'), fc.jsonValue()).map((rest) => ({ ...rest, ...head })))), (body) => {
        const result = parseRuleInput(body);
        if (!result.ok) expect(result.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseRulePatch', () => {
  const rule = stored(ok(parseRuleInput({ kind: 'square_ev', minEvPerSol: 0.05, stakeLamports: 1000, orePriceLamports: 5, fromSlotsBeforeEnd: 10, squares: [1], name: 'ev' })));

  it('replaces the fields given and keeps the id and creation time', () => {
    expect(ok(parseRulePatch(rule, { minEvPerSol: 0.1, enabled: false }))).toEqual({ ...rule, minEvPerSol: 0.1, enabled: false });
  });

  it('clears optional fields given as null', () => {
    expect(ok(parseRulePatch(rule, { name: null, orePriceLamports: null, squares: null }))).toMatchObject({ name: null, orePriceLamports: null, squares: null });
  });

  it('checks the merged rule as a whole and refuses a change of kind', () => {
    expect(problems(parseRulePatch(rule, { stakeLamports: -1, minOre: 3 }))).toEqual(['/minOre', '/stakeLamports']);
    expect(problems(parseRulePatch(rule, { kind: 'motherlode' }))).toEqual(['/kind']);
    expect(problems(parseRulePatch(rule, 'x'))).toEqual(['']);
  });

  it('never throws, whatever the body', () => {
    fc.assert(fc.property(fc.jsonValue(), (body) => void parseRulePatch(rule, body)), { numRuns: 1000 });
  });
});

describe('ruleCountProblem', () => {
  it('refuses a 21st rule by default', () => {
    expect(ruleCountProblem(19)).toBeNull();
    expect(ruleCountProblem(20)).toEqual({ path: '', message: 'an API key may own at most 20 alert rules; delete one first' });
  });
});

describe('isSolanaAddress', () => {
  it('accepts exactly the base58 encodings of 32 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), (bytes) => {
        expect(isSolanaAddress(encodeBase58(bytes))).toBe(bytes.length === 32);
      }),
    );
    expect(isSolanaAddress('0'.repeat(44))).toBe(false);
  });
});
