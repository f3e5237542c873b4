import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  createSafeFetch,
  isPublicAddress,
  OutboundBlockedError,
  parseAllowlist,
} from '../../src/platform/outbound/safe-fetch.js';

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
