import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * Outbound requests to user-given addresses (DESIGN.md §11): loopback, private, link-local, CGNAT and
 * cloud-metadata addresses are refused after DNS resolution, on the connection itself (so a name that
 * resolves differently the second time cannot slip through) and again on every redirect hop. Hosts in
 * CRM_OUTBOUND_ALLOWLIST are exempt (tests, an on-premise mail relay).
 */

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

export class OutboundBlockedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`Refused to connect to ${host}: it resolves to a non-public address (${address})`);
  }
}

/** Is this literal IP address one outbound requests may reach? (IPv4-mapped IPv6 is judged as IPv4.) */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]);
  const family = isIP(address);
  if (family === 0) return false;
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const allowed = (host: string, allowlist: readonly string[]) =>
  allowlist.includes(host.toLowerCase().replace(/^\[|\]$/g, ''));

/** Resolves a host and refuses it unless every address is public (or the host is allow-listed). */
export async function resolvePublicHost(host: string, allowlist: readonly string[]): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses: LookupAddress[] = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await new Promise((resolve, reject) =>
        dnsLookup(bare, { all: true }, (err, list) => (err ? reject(err) : resolve(list))),
      );
  if (allowed(bare, allowlist)) return addresses[0].address;
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  if (bad) throw new OutboundBlockedError(bare, bad.address);
  return addresses[0].address;
}

function guardedAgent(allowlist: readonly string[]) {
  return new Agent({
    connect: {
      lookup(hostname, options, callback) {
        dnsLookup(hostname, { ...options, all: true }, (err, list) => {
          if (err) return callback(err, '', 0);
          const entries = list as unknown as LookupAddress[];
          const bad = allowed(hostname, allowlist)
            ? undefined
            : entries.find((a) => !isPublicAddress(a.address));
          if (bad) return callback(new OutboundBlockedError(hostname, bad.address), '', 0);
          // undici asks with all: true on recent versions; answer in the form asked for.
          if ((options as { all?: boolean }).all) (callback as any)(null, entries);
          else callback(null, entries[0].address, entries[0].family);
        });
      },
    },
  });
}

export interface SafeFetchOptions {
  allowlist: readonly string[];
  timeoutMs: number;
  maxRedirects?: number;
  /** Responses larger than this are cut (bytes). */
  maxBytes?: number;
}

export interface SafeResponse {
  status: number;
  headers: Headers;
  body: string;
  url: string;
}

/** fetch for user-given URLs: http(s) only, SSRF rules on each hop, a timeout and a capped body. */
export async function safeFetch(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  opts: SafeFetchOptions,
): Promise<SafeResponse> {
  const dispatcher = guardedAgent(opts.allowlist);
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let current = new URL(url);
  let method = init.method ?? 'GET';
  let body = init.body;
  try {
    for (let hop = 0; ; hop++) {
      if (current.protocol !== 'http:' && current.protocol !== 'https:')
        throw new OutboundBlockedError(current.host, current.protocol);
      // A literal IP in the URL never goes through lookup: judge it here.
      const literal = current.hostname.replace(/^\[|\]$/g, '');
      if (isIP(literal) && !allowed(literal, opts.allowlist) && !isPublicAddress(literal))
        throw new OutboundBlockedError(literal, literal);
      const res = await undiciFetch(current, {
        method,
        headers: init.headers,
        body,
        redirect: 'manual',
        dispatcher,
        signal,
      });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        if (hop >= (opts.maxRedirects ?? 3)) throw new Error(`Too many redirects from ${url}`);
        current = new URL(location, current);
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const text = await readCapped(res.body as AsyncIterable<Uint8Array> | null, opts.maxBytes ?? 1_048_576);
      return {
        status: res.status,
        headers: res.headers as unknown as Headers,
        body: text,
        url: current.toString(),
      };
    }
  } finally {
    await dispatcher.close().catch(() => {});
  }
}

async function readCapped(stream: AsyncIterable<Uint8Array> | null, max: number): Promise<string> {
  if (!stream) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > max) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
