import { rpcEndpoint } from './rpc-endpoint';

describe('rpcEndpoint', () => {
  it('moves user info into a Basic authorization header and keeps the rest of the URL', () => {
    expect(rpcEndpoint('https://alice:s%40cret@rpc.example:8443/v1/abc?api-key=k')).toEqual({
      url: 'https://rpc.example:8443/v1/abc?api-key=k',
      headers: { authorization: `Basic ${Buffer.from('alice:s@cret').toString('base64')}` },
    });
  });

  it('leaves a URL without credentials as it is', () => {
    expect(rpcEndpoint('http://127.0.0.1:8899')).toEqual({ url: 'http://127.0.0.1:8899', headers: {} });
  });
});
