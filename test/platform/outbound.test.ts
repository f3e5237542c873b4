import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { classifyAddress } from '../../src/platform/outbound/address-class.js';
import {
  createSafeFetch,
  isPublicAddress,
  OutboundBlockedError,
  parseAllowlist,
} from '../../src/platform/outbound/safe-fetch.js';
import { findInternalTarget } from '../../src/platform/outbound/save-check.js';

/** The SSRF rules of DESIGN.md §11 for user-given URLs (calendars, later webhooks and automations). */

let server: Server;
let base: string;
const seen: { url: string; authorization?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) {
      res.writeHead(302, { location: to });
      return res.end();
    }
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('outbound safety', () => {
  test('private, loopback, link-local, shared, reserved and metadata addresses are not public', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ])
      expect(isPublicAddress(a), a).toBe(false);
    for (const a of ['1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(a), a).toBe(true);
  });

  test('refused without the allow-list, before any connection; allowed when listed', async () => {
    const strict = createSafeFetch({ allowlist: new Set() });
    await expect(strict(`${base}/`)).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(strict('http://localhost:1/')).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(strict('ftp://example.com/')).rejects.toBeInstanceOf(OutboundBlockedError);
    const allowed = createSafeFetch({ allowlist: parseAllowlist(' 127.0.0.1 , example.test') });
    expect(await (await allowed(`${base}/`)).text()).toBe('ok');
  });

  test('each redirect is checked again; credentials do not follow to another origin', async () => {
    const allowed = createSafeFetch({ allowlist: parseAllowlist('127.0.0.1') });
    const hop = `${base}/hop?to=${encodeURIComponent('http://127.0.0.2:8/')}`;
    await expect(allowed(hop)).rejects.toBeInstanceOf(OutboundBlockedError);
    const metadata = `${base}/hop?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`;
    await expect(allowed(metadata)).rejects.toBeInstanceOf(OutboundBlockedError);

    seen.length = 0;
    const same = `${base}/a?to=${encodeURIComponent(`${base}/b`)}`;
    const res = await allowed(same, { headers: { authorization: 'Basic abc' } });
    expect(await res.text()).toBe('ok');
    expect(seen.map((s) => [s.url, s.authorization])).toEqual([
      [`/a?to=${encodeURIComponent(`${base}/b`)}`, 'Basic abc'],
      ['/b', 'Basic abc'],
    ]);
    const manual = await allowed(same, { redirect: 'manual' });
    expect(manual.status).toBe(302);
  });

  test('a host name is judged by the address it resolves to (checked at connect time)', async () => {
    const name = hostname();
    const resolved = await lookup(name).catch(() => null);
    if (!resolved || isPublicAddress(resolved.address)) return; // nothing private to resolve to here
    const strict = createSafeFetch({ allowlist: new Set() });
    // The test server listens there: without the guard the request would succeed.
    const err = await strict(`http://${name}:${new URL(base).port}/`).catch((e: unknown) => e);
    const cause = (err as { cause?: unknown }).cause ?? err;
    expect(cause).toBeInstanceOf(OutboundBlockedError);
  });
});

test('a response larger than the cap fails while read, whatever its headers say', async () => {
  const big = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('x'.repeat(64 * 1024));
  });
  await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(big.address() as { port: number }).port}/`;
    const small = createSafeFetch({ allowlist: parseAllowlist('127.0.0.1'), maxResponseBytes: 1024 });
    await expect(small(url).then((r) => r.text())).rejects.toThrow(/larger than 1024 bytes/);
    const roomy = createSafeFetch({ allowlist: parseAllowlist('127.0.0.1') });
    expect((await (await roomy(url)).text()).length).toBe(64 * 1024);
  } finally {
    await new Promise((resolve) => big.close(resolve));
  }
});

describe('address classification (IANA special-purpose registries, embedded IPv4 decoded)', () => {
  // [address, what it is]: every one must be refused.
  const refused: [string, string][] = [
    ['0.1.2.3', '0/8 this network'],
    ['255.255.255.255', 'limited broadcast'],
    ['100.127.255.254', 'CGNAT 100.64/10'],
    ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
    ['192.0.2.1', 'documentation TEST-NET-1'],
    ['198.51.100.7', 'documentation TEST-NET-2'],
    ['203.0.113.9', 'documentation TEST-NET-3'],
    ['198.18.0.1', 'benchmarking 198.18/15'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['172.31.255.255', 'private 172.16/12'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:192.168.0.1', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::7f00:1', 'IPv4-compatible loopback, hex form'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata 169.254.169.254'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:a00:1:1::1', '6to4 of 10.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of the metadata address'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1 (XOR)'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo, client 10.0.0.1 (XOR)'],
    ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'Teredo, server 10.0.0.1'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
    ['64:ff9b::192.168.1.1', 'NAT64 of 192.168.1.1, dotted'],
    ['64:ff9b:1::7f00:1', 'local-use NAT64 (RFC 8215)'],
    ['64:ff9b:1:ab::808:808', 'local-use NAT64 is never global'],
    ['::ffff:0:a00:1', 'IPv4-translated (RFC 6145)'],
    ['100::1', 'discard-only 100::/64'],
    ['2001:2::1', 'benchmarking 2001:2::/48'],
    ['2001:db8::1', 'documentation 2001:db8::/32'],
    ['3fff::1', 'documentation 3fff::/20'],
    ['2001:10::1', 'ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['5f00::1', 'SRv6 SIDs'],
    ['fec0::1', 'site-local (deprecated)'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'outside global unicast 2000::/3'],
    ['::2', 'IPv4-compatible 0.0.0.2'],
  ];
  const allowed: [string, string][] = [
    ['8.8.8.8', 'public IPv4'],
    ['2606:4700:4700::1111', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['::808:808', 'IPv4-compatible public'],
    ['2002:808:808::1', '6to4 of 8.8.8.8'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, server 65.54.227.120, client 8.8.8.8'],
    ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
  ];
  test.each(refused)('%s (%s) is refused', (address) => {
    const c = classifyAddress(address);
    expect(c.public).toBe(false);
    expect(isPublicAddress(address)).toBe(false);
  });
  test.each(allowed)('%s (%s) passes', (address) => {
    expect(classifyAddress(address)).toEqual({ public: true });
  });
  test('the embedded IPv4 is named in the refusal', () => {
    expect(classifyAddress('2001:0:4136:e378:8000:63bf:80ff:fffe')).toEqual({
      public: false,
      range: 'loopback',
      embedded: '127.0.0.1',
    });
    expect(classifyAddress('2002:a9fe:a9fe::1')).toMatchObject({
      range: 'linkLocal',
      embedded: '169.254.169.254',
    });
  });

  test('embedded forms are refused at connect time, before any connection', async () => {
    const strict = createSafeFetch({ allowlist: new Set() });
    const port = new URL(base).port;
    seen.length = 0;
    for (const host of ['[::7f00:1]', '[::ffff:7f00:1]', '[2002:7f00:1::]', '[64:ff9b::7f00:1]'])
      await expect(strict(`http://${host}:${port}/`), host).rejects.toBeInstanceOf(OutboundBlockedError);
    expect(seen).toEqual([]);
  });

  test('save-time check: literals and local names refused, allow-listed hosts and unresolvable names pass', async () => {
    expect(await findInternalTarget('http://[2002:a00:1::]/hook', undefined)).toBeInstanceOf(
      OutboundBlockedError,
    );
    expect(await findInternalTarget('https://api.localhost/x', undefined)).toBeInstanceOf(
      OutboundBlockedError,
    );
    expect(await findInternalTarget('smtp://user:pw@10.1.2.3:25', undefined)).toBeInstanceOf(
      OutboundBlockedError,
    );
    expect(await findInternalTarget('http://127.0.0.1:9/x', '127.0.0.1')).toBeNull();
    expect(await findInternalTarget('https://8.8.8.8/x', undefined)).toBeNull();
    expect(await findInternalTarget('https://no-such-host.invalid/x', undefined)).toBeNull();
    const name = hostname();
    const resolved = await lookup(name).catch(() => null);
    if (resolved && !isPublicAddress(resolved.address))
      expect(await findInternalTarget(`http://${name}/`, undefined)).toBeInstanceOf(OutboundBlockedError);
  });
});
