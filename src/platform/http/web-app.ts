import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The browser application (web/, built by `npm run build` into dist/web) served at /app: hashed assets as
 * immutable, every other path under /app gets index.html (the SPA routes), which is never cached so a new
 * build is picked up at once. Files are read once at start into memory (a few hundred KB) and looked up by
 * exact name: no path from the request ever reaches the file system.
 */
export const WEB_DIR = fileURLToPath(new URL('../../../dist/web', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

interface WebFile {
  body: Buffer;
  type: string;
  immutable: boolean;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

export function loadWebFiles(dir = WEB_DIR): Map<string, WebFile> | null {
  if (!existsSync(join(dir, 'index.html'))) return null;
  const files = new Map<string, WebFile>();
  for (const path of walk(dir)) {
    const name = relative(dir, path).split(sep).join('/');
    files.set(name, {
      body: readFileSync(path),
      type: TYPES[extname(name)] ?? 'application/octet-stream',
      // Vite names every built asset after its content hash (assets/index-3f2a9c1b.js).
      immutable: name.startsWith('assets/'),
    });
  }
  return files;
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>CRM</title>
<p>The web application is not built. Run <code>npm run build</code> (or <code>npm install</code>) and restart.</p>`;

export async function registerWebApp(app: FastifyInstance, dir = WEB_DIR) {
  const files = loadWebFiles(dir);
  const send = (reply: FastifyReply, file: WebFile) =>
    reply
      .type(file.type)
      .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(file.body);
  const handler = async (req: { params: unknown }, reply: FastifyReply) => {
    const rest = ((req.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
    if (!files)
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(NOT_BUILT);
    const file = files.get(rest);
    if (file) return send(reply, file);
    // A missing hashed asset is a 404 (an old page asking for a removed chunk), not the HTML shell.
    if (rest.startsWith('assets/')) return reply.code(404).type('text/plain').send('Not found');
    return send(reply, files.get('index.html')!);
  };
  // HTML pages get the security headers (CSP: own scripts only, API calls to this origin), like /api/docs.
  const config = { auth: 'public' as const, helmet: {} } as never;
  app.get('/app', { config, schema: { hide: true } }, (_req, reply) => reply.redirect('/app/', 302));
  app.get('/app/*', { config, schema: { hide: true } }, handler);
}
