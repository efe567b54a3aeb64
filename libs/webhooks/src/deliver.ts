import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { hostOf, type PinnedAddress } from './target';

export interface DeliveryOptions {
  /** From the request's start to the end of what is read of the answer. Default 5 s. */
  readonly timeoutMs?: number;
  /** Bytes of the answer kept for the delivery log. Default 1,024. */
  readonly excerptBytes?: number;
  /** Bytes of the answer read at most; the connection is closed past them. Default 64 KiB. */
  readonly readLimitBytes?: number;
}

export interface DeliveryResult {
  /** The receiver's HTTP status; null when none came. */
  readonly status: number | null;
  /** A 2xx answer: delivered. */
  readonly delivered: boolean;
  readonly latencyMs: number;
  /** The start of the answer's body (UTF-8, possibly cut mid-character). */
  readonly excerpt: string;
  /** Why it was not delivered: `timeout`, `redirect not followed`, or the connection's error code; null when delivered. */
  readonly error: string | null;
}

const USER_AGENT = 'Gridlab-Webhooks/1 (+https://www.standardwebhooks.com)';

/**
 * POSTs `body` to `url`, connecting to `pinned` only (the address its host was checked
 * at: `resolveTarget`); TLS still verifies the certificate for the URL's host name. A
 * redirect is reported, never followed; the answer is read up to a limit, then the
 * connection is closed; the whole exchange has one deadline. Never throws.
 */
export function deliver(url: URL, pinned: PinnedAddress, body: string, headers: Readonly<Record<string, string>>, options: DeliveryOptions = {}): Promise<DeliveryResult> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const excerptBytes = options.excerptBytes ?? 1_024;
  const readLimit = Math.max(excerptBytes, options.readLimitBytes ?? 64 * 1024);
  const host = hostOf(url);
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    const finish = (error: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      const excerpt = Buffer.concat(kept).subarray(0, excerptBytes).toString('utf8');
      const delivered = error === null && status !== null && status >= 200 && status < 300;
      resolve({ status, delivered, latencyMs: performance.now() - started, excerpt, error: delivered ? null : (error ?? (status !== null && status >= 300 && status < 400 ? 'redirect not followed' : null)) });
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req: ClientRequest = send(url, {
      method: 'POST',
      // A fresh connection per delivery: a pooled one could have been opened to another address of the name.
      agent: false,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      lookup: (_hostname: string, opts: LookupOptions, callback: (error: null, address: string | LookupAddress[], family?: number) => void) => {
        if (opts.all === true) callback(null, [{ address: pinned.address, family: pinned.family }]);
        else callback(null, pinned.address, pinned.family);
      },
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': USER_AGENT },
    });
    const deadline = setTimeout(() => {
      finish('timeout');
      req.destroy();
    }, timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      status = res.statusCode ?? null;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (keptBytes < excerptBytes) {
          kept.push(chunk.subarray(0, excerptBytes - keptBytes));
          keptBytes += Math.min(chunk.length, excerptBytes - keptBytes);
        }
        if (read >= readLimit) {
          // Enough of it: what a receiver says past this is not read, and does not hold the notifier.
          finish(null);
          res.destroy();
        }
      });
      res.on('end', () => finish(null));
      res.on('error', () => finish(null));
      res.on('close', () => finish(null));
    });
    req.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    req.end(body);
  });
}
