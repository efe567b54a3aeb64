import { isIP } from 'node:net';

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy, in which
 * case the rightmost X-Forwarded-For entry that is not itself a trusted proxy. An
 * untrusted peer cannot choose its address by sending the header.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trustedProxies: ReadonlySet<string>): string {
  const self = normalize(peer ?? 'unknown');
  if (!trustedProxies.has(self) || forwardedFor === undefined) return self;
  const hops = forwardedFor.split(',').map((h) => normalize(h.trim())).filter((h) => isIP(h) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trustedProxies.has(hops[i]!)) return hops[i]!;
  }
  return hops[0] ?? self;
}

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) is 1.2.3.4. */
function normalize(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
