import fc from 'fast-check';
import { parseJsonBytes } from './json-bytes';

/** What parsing the whole text gives: the value, or that it throws. */
function parsedWhole(text: string): { value: unknown } | 'throws' {
  try {
    // As fetch's json() reads it: UTF-8, a byte order mark dropped.
    return { value: JSON.parse(new TextDecoder().decode(Buffer.from(text))) };
  } catch {
    return 'throws';
  }
}

function parsedBytes(text: string): { value: unknown } | 'throws' {
  try {
    return { value: parseJsonBytes(Buffer.from(text)) };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return 'throws';
  }
}

describe('parseJsonBytes', () => {
  it('gives what JSON.parse gives for any JSON text, arrays cut into items or not', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.boolean(), (items, pretty) => {
        const text = JSON.stringify(items, null, pretty ? 2 : undefined);
        expect(parsedBytes(text)).toEqual(parsedWhole(text));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(parsedBytes(text)).toEqual(parsedWhole(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads strings with escaped quotes, backslashes, brackets, commas and non-ASCII text', () => {
    for (const text of [
      '["a\\"],[{", "\\\\", "\\\\\\"", "é,]", "日本"]',
      '[{"jsonrpc":"2.0","id":"é","result":{"logs":["a, b]","}"]}},{"id":2}]',
      ' [ 1 , [2,3] , {"a":[4]} ] \n',
      '[]',
      '[ ]',
      '[[]]',
      '[""]',
      '\ufeff[1,{"a":"b"}]',
      '\ufeff{"a":1}',
    ]) {
      expect(parsedBytes(text)).toEqual(parsedWhole(text));
    }
  });

  it('fails where JSON.parse fails', () => {
    for (const text of ['', '[', '[1,', '[1,]', '[,1]', '[1}', '[1]]', '[1] x', '[{]', '[{"a":1],2}]', '["a]', '["a\\"]', '[1 2]', '{"a":1']) {
      expect(parsedBytes(text)).toBe('throws');
      expect(parsedWhole(text)).toBe('throws');
    }
  });

  it('fails like JSON.parse on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('[', ']', '{', '}', ',', '"', '\\', '1', ' ', ':', 'a') }), (body) => {
        const text = `[${body}]`;
        const whole = parsedWhole(text);
        expect(parsedBytes(text)).toEqual(whole);
      }),
      { numRuns: 20000 },
    );
  });
});
