import { clientAddress, trustedProxies } from './client-address';

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

  it('identifies IPv6 clients by their /64, whatever the interface id or notation', () => {
    const none = new Set<string>();
    expect(clientAddress('2001:db8:1:2::1', undefined, none)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:0db8:0001:0002:ffff:eeee:dddd:cccc', undefined, none)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8::5', undefined, none)).toBe('2001:db8:0:0::/64');
    expect(clientAddress('::1', undefined, none)).toBe('0:0:0:0::/64');
    expect(clientAddress('fe80::1%eth0', undefined, none)).toBe('fe80:0:0:0::/64');
    expect(clientAddress('2001:db8:1:3::1', undefined, none)).not.toBe(clientAddress('2001:db8:1:2::1', undefined, none));
  });
});

describe('trustedProxies', () => {
  it('accepts addresses and CIDR ranges of both families', () => {
    const proxies = trustedProxies(['10.0.0.0/8', '192.0.2.7', 'fd00::/8', '2001:db8::1']);
    expect(['10.1.2.3', '192.0.2.7', 'fd12::1', '2001:db8::1'].map((a) => proxies.has(a))).toEqual([true, true, true, true]);
    expect(['11.0.0.1', '192.0.2.8', 'fe00::1', '2001:db8::2', 'junk'].map((a) => proxies.has(a))).toEqual([false, false, false, false, false]);
    // Answers are remembered per peer: asked again, the same.
    expect(['10.1.2.3', '11.0.0.1', 'junk'].map((a) => proxies.has(a))).toEqual([true, false, false]);
    expect(clientAddress('10.9.8.7', '198.51.100.7, 10.200.0.1', proxies)).toBe('198.51.100.7');
    expect(clientAddress('fd00::9', '2001:db8:aa:bb::1', proxies)).toBe('2001:db8:aa:bb::/64');
  });

  it('trusts nobody when none is configured', () => {
    const none = trustedProxies([]);
    expect(['127.0.0.1', '10.0.0.1', '::1'].map((a) => none.has(a))).toEqual([false, false, false]);
    expect(clientAddress('127.0.0.1', '198.51.100.7', none)).toBe('127.0.0.1');
  });

  it('refuses malformed entries at start-up', () => {
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'nonsense', '10.0.0.0/', '10.0.0.0/x']) expect(() => trustedProxies([bad])).toThrow(RangeError);
  });
});
