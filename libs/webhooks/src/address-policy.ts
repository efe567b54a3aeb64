import ipaddr from 'ipaddr.js';

/**
 * Why an address may not be delivered to, or null when it may: only ordinary unicast
 * addresses of the public internet. Loopback, private (RFC 1918), link-local (the cloud
 * metadata address 169.254.169.254 among them), carrier-grade NAT (100.64/10, Alibaba's
 * metadata at 100.100.100.200), unique-local IPv6 (AWS's fd00:ec2::254), multicast,
 * reserved and documentation ranges are refused; so are IPv6 forms that carry an IPv4
 * address another hop unwraps (NAT64, 6to4, Teredo). An IPv4-mapped IPv6 address
 * (`::ffff:10.0.0.1`) is judged as the IPv4 address it is.
 */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? null : `${address} is ${parsed.kind() === 'ipv4' ? 'IPv4' : 'IPv6'} ${range}`;
}
