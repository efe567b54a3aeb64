import { BlockList, isIP } from 'node:net';

/** Which peers are trusted proxies (a Set of addresses works too). */
export interface ProxyMatcher {
  has(address: string): boolean;
}

/**
 * TRUSTED_PROXIES entries: single addresses or CIDR ranges, IPv4 or IPv6
 * (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`). A malformed entry is an error at start-up.
 */
export function trustedProxies(entries: readonly string[]): ProxyMatcher {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32) || (prefix !== undefined && !/^\d+$/.test(prefix))) {
      throw new RangeError(`TRUSTED_PROXIES: ${entry} is not an IP address or CIDR range`);
    }
    list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
  }
  // Asked for every request's peer: none trusted costs nothing, and BlockList.check
  // (which builds a SocketAddress per call) runs once per peer address.
  if (entries.length === 0) return { has: () => false };
  const known = new Map<string, boolean>();
  return {
    has: (address) => {
      let trusted = known.get(address);
      if (trusted === undefined) {
        trusted = isIP(address) !== 0 && list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
        if (known.size >= MAX_KNOWN_PEERS) known.clear();
        known.set(address, trusted);
      }
      return trusted;
    },
  };
}

/** Peer addresses whose trust is remembered (dropped whole when full). */
const MAX_KNOWN_PEERS = 10_000;

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy, in which
 * case the rightmost X-Forwarded-For entry that is not itself a trusted proxy. An
 * untrusted peer cannot choose its address by sending the header. An IPv6 client is
 * identified by its /64 (one customer usually holds a whole /64), so limits per address
 * cannot be dodged by rotating through it.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trusted: ProxyMatcher): string {
  return limitUnit(resolve(peer, forwardedFor, trusted));
}

function resolve(peer: string | undefined, forwardedFor: string | undefined, trusted: ProxyMatcher): string {
  const self = normalize(peer ?? 'unknown');
  if (!trusted.has(self) || forwardedFor === undefined) return self;
  const hops = forwardedFor.split(',').map((h) => normalize(h.trim())).filter((h) => isIP(h) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i]!)) return hops[i]!;
  }
  return hops[0] ?? self;
}

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) is 1.2.3.4. */
function normalize(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** IPv6 → its /64 as `xxxx:xxxx:xxxx:xxxx::/64`; anything else unchanged. */
function limitUnit(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expand(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case, without leading zeros. */
function expand(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (::1.2.3.4) counts as two groups.
  const last = right.length > 0 ? right : left;
  if (last.length > 0 && last[last.length - 1]!.includes('.')) {
    const [a, b, c, d] = last.pop()!.split('.').map(Number) as [number, number, number, number];
    last.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => parseInt(g, 16).toString(16));
}
