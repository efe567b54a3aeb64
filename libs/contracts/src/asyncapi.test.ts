import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { keySharedSchema, liveSnapshotSchema, natsNames, roundOpenedSchema, roundSchema } from './index';

const DOC = parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'asyncapi.yaml'), 'utf8')) as {
  asyncapi: string;
  channels: Record<string, { address: string }>;
  components: { messages: Record<string, { payload: unknown }> };
};

describe('docs/asyncapi.yaml', () => {
  it('is an AsyncAPI 3 document with a channel for every subject the contracts define', () => {
    expect(DOC.asyncapi).toMatch(/^3\./);
    const addresses = Object.values(DOC.channels).map((c) => c.address).sort();
    expect(addresses).toEqual(Object.values(natsNames('').subjects).sort());
  });

  it('documents exactly the payload schemas the services validate against', () => {
    expect(DOC.components.messages['Round']?.payload).toEqual(roundSchema);
    expect(DOC.components.messages['RoundOpened']?.payload).toEqual(roundOpenedSchema);
    expect(DOC.components.messages['LiveSnapshot']?.payload).toEqual(liveSnapshotSchema);
    expect(DOC.components.messages['KeyShared']?.payload).toEqual(keySharedSchema);
  });
});
