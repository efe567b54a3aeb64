import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { natsNames } from './index';

const DOC = parse(readFileSync(join(__dirname, '..', '..', '..', 'docs', 'asyncapi.yaml'), 'utf8')) as {
  asyncapi: string;
  channels: Record<string, { address: string | null }>;
  components: { messages: Record<string, { payload: unknown }> };
};

describe('docs/asyncapi.yaml', () => {
  it('is an AsyncAPI 3 document with a channel for every subject the contracts define', () => {
    expect(DOC.asyncapi).toMatch(/^3\./);
    const addresses = Object.values(DOC.channels)
      .map((c) => c.address)
      .filter((a) => a !== null)
      .sort();
    const names = natsNames('');
    expect(addresses).toEqual([...Object.values(names.subjects), ...Object.values(names.commands)].sort());
  });

  it("gives every JSON message a payload from the contracts' schemas", () => {
    for (const [name, message] of Object.entries(DOC.components.messages)) {
      const payload = message.payload as { $ref?: string; contentMediaType?: string };
      if (payload.contentMediaType !== undefined) continue;
      expect([name, payload.$ref]).toEqual([name, `#/components/schemas/${name}`]);
    }
  });
});
