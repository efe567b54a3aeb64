import { readFileSync } from 'node:fs';
import { API } from '@gridlab/contracts';
import { CLIENT_OPERATIONS_PATH, clientOperationsText, successMediaType } from './client-operations';

describe("the client's table of operations", () => {
  it('is what the operation table makes it (else run `pnpm -s generate`)', () => {
    expect(readFileSync(CLIENT_OPERATIONS_PATH, 'utf8')).toBe(clientOperationsText());
  });

  it("records what a success answers with: a stream's media type, the first of several, none for 204", () => {
    expect(successMediaType(API.streamLive)).toBe('text/event-stream');
    expect(successMediaType(API.dumpRounds)).toBe('application/json');
    expect(successMediaType(API.createStrategy)).toBe('application/json');
    expect(successMediaType(API.endSession)).toBeNull();
  });
});
