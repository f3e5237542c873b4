import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import { registerWebApp } from '../../src/platform/http/web-app.js';
import { getApp } from '../helpers/app.js';

/** How the service serves the built app at /app: SPA fallback, caching headers, no file-system paths. */
describe('serving /app', () => {
  const built = () => {
    const dir = mkdtempSync(join(tmpdir(), 'crm-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
    writeFileSync(join(dir, 'assets/index-abc123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'outside.txt'), 'x');
    return dir;
  };

  test('hashed assets are immutable; every other path is index.html, never cached', async () => {
    const app = Fastify();
    await registerWebApp(app, built());
    const asset = await app.inject({ url: '/app/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toContain('text/javascript');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    for (const url of ['/app/', '/app/boards/abc', '/app/f/xyz?utm_source=a', '/app/contacts/1']) {
      const page = await app.inject({ url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.body).toContain('id="root"');
    }
    expect((await app.inject({ url: '/app' })).headers.location).toBe('/app/');
    // A missing hashed asset is a 404, not the HTML shell; no path leaves the build's files.
    expect((await app.inject({ url: '/app/assets/gone-123.js' })).statusCode).toBe(404);
    for (const url of ['/app/../package.json', '/app/%2e%2e/package.json', '/app/assets/../../outside.txt']) {
      const res = await app.inject({ url });
      expect(res.body, url).not.toContain('"name"');
    }
    await app.close();
  });

  test('an unbuilt app answers a page saying how to build it', async () => {
    const app = Fastify();
    await registerWebApp(app, mkdtempSync(join(tmpdir(), 'crm-web-empty-')));
    const res = await app.inject({ url: '/app/boards/x' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
    await app.close();
  });

  test('the service serves /app publicly with the HTML pages’ security headers', async () => {
    const { app } = await getApp();
    const res = await app.inject({ url: '/app/boards/x' });
    expect([200, 503]).toContain(res.statusCode);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});
