import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { refusedAddress } from './address-policy';

/** What the operator allows beyond public https targets on port 443. */
export interface TargetPolicy {
  /** `http:` targets too (tests, or a receiver on the operator's own network). Default false. */
  readonly allowHttp?: boolean;
  /** Targets that resolve to loopback, private, link-local and the like. Default false. */
  readonly allowPrivate?: boolean;
  /** Ports a target may name; default 443 (and 80 with `allowHttp`), the only egress a cluster gives the notifier. */
  readonly ports?: readonly number[];
}

export type TargetCheck = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

const MAX_URL_LENGTH = 2048;

/**
 * A webhook URL as the notifier will call it, or why not: absolute `https:` (`http:`
 * only when allowed), no user or password in it (they would be sent to, and logged by,
 * whatever the host resolves to), an allowed port, and a literal address that is public
 * (unless private targets are allowed). The WHATWG parser has already turned the
 * address spellings that fool naive checks (`http://2130706433/`, `http://0x7f.1/`,
 * `http://[::ffff:7f00:1]/`) into their canonical form, so the literal check sees them.
 * A host name is checked when it is resolved (`resolveTarget`), at creation and again at
 * every delivery.
 */
export function checkTarget(raw: string, policy: TargetPolicy = {}): TargetCheck {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp === true)) {
    return { ok: false, reason: policy.allowHttp === true ? 'the URL must be https or http' : 'the URL must be https' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'the URL must not carry a user name or password' };
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const ports = policy.ports ?? (policy.allowHttp === true ? [443, 80] : [443]);
  if (!ports.includes(port)) return { ok: false, reason: `port ${port} is not allowed (allowed: ${ports.join(', ')})` };
  const host = hostOf(url);
  if (isIP(host) !== 0 && policy.allowPrivate !== true) {
    const refused = refusedAddress(host);
    if (refused !== null) return { ok: false, reason: `the target is not a public address (${refused})` };
  }
  return { ok: true, url };
}

/** The URL's host name or address, without an IPv6 literal's brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** An address a target resolved to, which its delivery connects to and nothing else. */
export interface PinnedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export type Lookup = (host: string) => Promise<readonly { readonly address: string; readonly family: number }[]>;

/** How long a name may take to resolve: a resolver that does not answer must not hold a delivery, or an owner's request, past its deadline. */
const LOOKUP_TIMEOUT_MS = 2_000;

const systemLookup: Lookup = (host) => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${host}: no answer in ${LOOKUP_TIMEOUT_MS} ms`), { code: 'ETIMEOUT' })), LOOKUP_TIMEOUT_MS);
  });
  return Promise.race([dnsLookup(host, { all: true, verbatim: true }), late]).finally(() => clearTimeout(timer));
};

export type ResolvedTarget = { readonly ok: true; readonly address: PinnedAddress } | { readonly ok: false; readonly reason: string };

/**
 * The address to deliver to: every address the host resolves to must be allowed (one
 * refused address refuses the target, so an attacker's name cannot hand out a mix), and
 * the first is pinned: the delivery connects to it, so a name that resolves elsewhere a
 * moment later (DNS rebinding) changes nothing.
 */
export async function resolveTarget(url: URL, policy: TargetPolicy = {}, lookup: Lookup = systemLookup): Promise<ResolvedTarget> {
  const host = hostOf(url);
  let addresses: readonly { readonly address: string; readonly family: number }[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host);
    } catch (error) {
      return { ok: false, reason: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  if (policy.allowPrivate !== true) {
    for (const a of addresses) {
      const refused = refusedAddress(a.address);
      if (refused !== null) return { ok: false, reason: `${host} resolves to an address that is not public (${refused})` };
    }
  }
  const first = addresses[0]!;
  return { ok: true, address: { address: first.address, family: first.family === 6 ? 6 : 4 } };
}
