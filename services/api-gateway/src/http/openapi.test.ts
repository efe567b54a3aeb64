import { loadOpenApi } from './openapi';

// The document's schemas are generated from @gridlab/contracts and checked by tools/api-docs.
describe('the OpenAPI document', () => {
  it('marks no operation as planned: every endpoint of the contract is served', () => {
    const paths = (loadOpenApi().document as { paths: Record<string, Record<string, { 'x-gridlab-status'?: string }>> }).paths;
    const planned = Object.entries(paths).flatMap(([path, ops]) => Object.values(ops).filter((op) => op['x-gridlab-status'] !== undefined).map(() => path));
    expect(planned).toEqual([]);
  });
});
