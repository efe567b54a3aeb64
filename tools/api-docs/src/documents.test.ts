import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ASYNCAPI_PATH, OPENAPI_PATH, asyncApiText, components, openApiText } from './documents';
import { Type } from '@gridlab/contracts';

describe('the API documents', () => {
  it('carry the schemas @gridlab/contracts defines (else run `pnpm -s generate`)', () => {
    expect(readFileSync(OPENAPI_PATH, 'utf8')).toBe(openApiText());
    expect(readFileSync(ASYNCAPI_PATH, 'utf8')).toBe(asyncApiText());
  });

  it('are stale when a contract changes: regenerating a hand-edited schema restores it', () => {
    const current = readFileSync(OPENAPI_PATH, 'utf8');
    const edited = current.replace('\n    Round:\n', '\n    Round:\n      deprecated: true\n');
    expect(edited).not.toBe(current);
    expect(openApiText(edited)).toBe(current);
  });

  it('keeps the hand-written parts: paths and operations are the same objects after generation', () => {
    const doc = parse(openApiText()) as { paths: unknown; info: unknown };
    const text = parse(readFileSync(OPENAPI_PATH, 'utf8')) as { paths: unknown; info: unknown };
    expect(doc.paths).toEqual(text.paths);
    expect(doc.info).toEqual(text.info);
  });

  it('points a reference at the component of the schema it names, and adds a referenced schema no list names', () => {
    const inner = Type.Object({ n: Type.Integer() }, { $id: 'LiveGame' });
    const outer = Type.Object({ inner: Type.Ref(inner), dsl: Type.Ref('StrategyDsl') });
    const out = components({ Outer: outer, Dsl: { $id: 'StrategyDsl', type: 'object' } });
    expect(out['Outer']).toEqual({
      type: 'object',
      required: ['inner', 'dsl'],
      properties: { inner: { $ref: '#/components/schemas/LiveGame' }, dsl: { $ref: '#/components/schemas/Dsl' } },
    });
    expect(Object.keys(out)).toEqual(['Outer', 'Dsl', 'LiveGame']);
    expect(() => components({ Outer: Type.Object({ x: Type.Ref('Nowhere') }) })).toThrow(/Nowhere/);
  });
});
