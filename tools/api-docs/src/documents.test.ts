import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ASYNCAPI_PATH, OPENAPI_PATH, asyncApiText, components, openApiText } from './documents';
import { API_OPERATIONS, Type } from '@gridlab/contracts';

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

  it('keeps the hand-written parts: info and servers are the same after generation', () => {
    const doc = parse(openApiText()) as { info: unknown; servers: unknown };
    const text = parse(readFileSync(OPENAPI_PATH, 'utf8')) as { info: unknown; servers: unknown };
    expect(doc.info).toEqual(text.info);
    expect(doc.servers).toEqual(text.servers);
  });

  it('writes every path from the operation table: each operation under its id, and nothing else', () => {
    type Doc = { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>> };
    const current = readFileSync(OPENAPI_PATH, 'utf8');
    const edited = current.replace('operationId: getStats', 'operationId: getStats\n      deprecated: true');
    expect(edited).not.toBe(current);
    expect(openApiText(edited)).toBe(current);
    const doc = parse(current) as Doc;
    const written = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(written.sort()).toEqual(API_OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path} ${op.operationId}`).sort());
    // What an operation's access implies is written too: a paid one answers 401, 402 and 429.
    expect(Object.keys(doc.paths['/api/v1/stats']!['get']!.responses)).toEqual(['200', '401', '402', '429']);
    expect(doc.paths['/api/v1/lab/leaderboard']!['get']).toMatchObject({ security: [] });
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
