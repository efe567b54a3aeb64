import { clientAddress } from './client-address';

const trusted = new Set(['10.0.0.1', '10.0.0.2']);

describe('clientAddress', () => {
  it('uses the socket peer when it is not a trusted proxy, ignoring a forged header', () => {
    expect(clientAddress('203.0.113.9', '1.2.3.4', trusted)).toBe('203.0.113.9');
  });

  it('takes the rightmost untrusted hop behind trusted proxies', () => {
    expect(clientAddress('10.0.0.1', '198.51.100.7, 203.0.113.5, 10.0.0.2', trusted)).toBe('203.0.113.5');
  });

  it('normalizes IPv4-mapped IPv6 peers and skips junk entries', () => {
    expect(clientAddress('::ffff:10.0.0.1', 'garbage, 198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:192.0.2.1', undefined, trusted)).toBe('192.0.2.1');
  });
});
