import { API } from '@gridlab/contracts';
import type { AppDeps } from '../app';
import { RAW_OPERATIONS, ROUTED_HANDLERS, rawHandlers, type GatewayStreams } from '.';

describe('the operation table and the handlers', () => {
  // Building the raw handlers touches none of their dependencies.
  const raw = Object.keys(rawHandlers({} as AppDeps, {} as GatewayStreams));
  const handled = [...Object.keys(ROUTED_HANDLERS), ...raw];

  it('has a handler for every declared operation', () => {
    expect(Object.keys(API).filter((id) => !handled.includes(id))).toEqual([]);
  });

  it('declares every operation a handler is bound to, once', () => {
    expect(handled.filter((id) => !(id in API))).toEqual([]);
    expect(handled.filter((id, i) => handled.indexOf(id) !== i)).toEqual([]);
    expect(raw.sort()).toEqual([...RAW_OPERATIONS].sort());
  });
});
