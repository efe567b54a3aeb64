/**
 * An RPC URL as fetch can call it. Providers that authenticate with the URL's user info
 * (`https://user:password@host/`) are refused by fetch (a URL with credentials cannot make
 * a Request), so the credentials travel as an `Authorization: Basic` header instead,
 * as a browser or curl sends them; the URL keeps everything else (a key in the path or
 * the query stays where the provider expects it).
 */
export interface RpcEndpoint {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export function rpcEndpoint(url: string): RpcEndpoint {
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return { url, headers: {} };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } };
}
