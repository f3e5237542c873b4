import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import { describeAddress, isPublicAddress } from './address-class.js';

/**
 * The one way to call a user-given URL (calendars today; webhooks and automation requests later), per
 * DESIGN.md §11: loopback, private, link-local, shared, multicast, reserved and metadata addresses are refused
 * after DNS resolution — checked on the address the socket really connects to (no DNS rebinding window) and
 * again on every redirect — unless the host is listed in `CRM_OUTBOUND_ALLOWLIST` (operator's comma list).
 */

export class OutboundBlockedError extends Error {
  constructor(
    readonly host: string,
    readonly address?: string,
    reason?: string,
  ) {
    super(
      reason
        ? `${host}: ${reason}`
        : address
          ? `${host} resolves to ${describeAddress(address)}, a special-purpose address: refused`
          : `${describeAddress(host)} is a special-purpose address: refused`,
    );
    this.name = 'OutboundBlockedError';
  }
}

export { isPublicAddress };

export function parseAllowlist(value: string | undefined): Set<string> {
  return new Set(
    (value ?? '')
      .split(',')
      .map((h) =>
        h
          .trim()
          .toLowerCase()
          .replace(/^\[|\]$/g, ''),
      )
      .filter(Boolean),
  );
}

export const bareHost = (hostname: string) => hostname.toLowerCase().replace(/^\[|\]$/g, '');
export const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

export interface SafeFetchOptions {
  /** Hosts (names or IP addresses) exempt from the address check. */
  allowlist: Set<string>;
  /** Per request, including redirects. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** A response body larger than this fails while being read (a hostile server cannot exhaust memory). */
  maxResponseBytes?: number;
  /** PEM certificate authorities trusted beside the system's (CRM_OUTBOUND_CA_FILE's contents). */
  extraCa?: string;
}

export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the response is larger than ${limit} bytes: refused`);
    this.name = 'ResponseTooLargeError';
  }
}

/** The response with its body counted as it streams: past `limit` bytes the read fails. */
function capped(res: Response, limit: number): Response {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > limit) {
    res.body?.cancel().catch(() => {});
    throw new ResponseTooLargeError(limit);
  }
  if (!res.body) return res;
  let seen = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > limit) controller.error(new ResponseTooLargeError(limit));
      else controller.enqueue(chunk);
    },
  });
  return new Response(res.body.pipeThrough(counter), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

export type SafeFetch = typeof globalThis.fetch;

/** A fetch that refuses non-public targets (see above); same signature as the global fetch. */
export function createSafeFetch({
  allowlist,
  timeoutMs = 15_000,
  maxRedirects = 5,
  maxResponseBytes = 10 * 1024 * 1024,
  extraCa,
}: SafeFetchOptions): SafeFetch {
  const guardedLookup = (
    hostname: string,
    options: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!allowlist.has(bareHost(hostname))) {
        const bad = list.find((a) => !isPublicAddress(a.address) && !allowlist.has(a.address));
        if (bad) return callback(new OutboundBlockedError(hostname, bad.address), []);
      }
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
  const ca = extraCa ? [...rootCertificates, extraCa] : undefined;
  const dispatcher = new Agent({
    connect: { lookup: guardedLookup as never, ca },
    connectTimeout: timeoutMs,
  });

  /** IP literals skip DNS (and so the guarded lookup): judged here, before connecting. */
  const checkUrl = (url: URL) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new OutboundBlockedError(url.hostname || url.href, undefined, 'only http(s) URLs are allowed');
    const host = bareHost(url.hostname);
    if (allowlist.has(host)) return;
    if (isIP(host) && !isPublicAddress(host)) throw new OutboundBlockedError(host);
    if (isLocalName(host)) throw new OutboundBlockedError(host, undefined, 'a local name: refused');
  };

  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    // Callers pass URLs (a Request's own body and headers would be dropped: refused rather than half-sent).
    if (typeof input !== 'string' && !(input instanceof URL)) throw new TypeError('safe fetch takes a URL');
    let url = new URL(String(input));
    let requestInit = { ...init };
    const signal = init.signal ?? AbortSignal.timeout(timeoutMs);
    for (let hop = 0; ; hop++) {
      checkUrl(url);
      const res = await undiciFetch(url, {
        ...(requestInit as object),
        redirect: 'manual',
        signal,
        dispatcher,
      } as never);
      const location = res.headers.get('location');
      // A caller that follows redirects itself (CalDAV discovery reads the Location) gets the 3xx; its next
      // request comes back through here and is checked again.
      if (init.redirect === 'manual') return capped(res as unknown as Response, maxResponseBytes);
      if (res.status < 300 || res.status >= 400 || res.status === 304 || !location)
        return capped(res as unknown as Response, maxResponseBytes);
      if (hop >= maxRedirects) throw new Error(`more than ${maxRedirects} redirects`);
      await res.body?.cancel();
      const next = new URL(location, url);
      // Credentials never follow a redirect to another origin.
      if (next.origin !== url.origin && requestInit.headers) {
        const headers = new Headers(requestInit.headers);
        for (const h of ['authorization', 'proxy-authorization', 'cookie']) headers.delete(h);
        requestInit = { ...requestInit, headers };
      }
      // 303 (and 301/302 after a POST) become GETs without a body, as browsers do.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && requestInit.method === 'POST'))
        requestInit = { ...requestInit, method: 'GET', body: undefined };
      url = next;
    }
  }) as SafeFetch;
}

const shared = new Map<string, SafeFetch>();

/**
 * One safe fetch per allowlist and options for the process, so the workers' passes (a webhook delivery run, an
 * automation run: several a second under load) reuse their kept-alive connections instead of opening new ones
 * from a new connection pool every pass. Connections are judged when they open (the guarded lookup), as before.
 */
export function sharedSafeFetch(
  allowlist: string | undefined,
  options: Omit<SafeFetchOptions, 'allowlist'> = {},
): SafeFetch {
  const key = JSON.stringify([allowlist ?? '', options]);
  let f = shared.get(key);
  if (!f) {
    f = createSafeFetch({ ...options, allowlist: parseAllowlist(allowlist) });
    shared.set(key, f);
  }
  return f;
}
