import compress from '@fastify/compress';
import cors from '@fastify/cors';
import etag from '@fastify/etag';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';

/** Response headers a browser script may read: rate limits, retry hint, request id, idempotent replay, dry run, ETag. */
export const EXPOSED_HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'retry-after',
  'x-request-id',
  'idempotent-replayed',
  'dry-run',
  'etag',
  'content-disposition',
];
/** Request headers a browser script may send beyond the CORS-safelisted ones. */
export const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-tenant-id',
  'idempotency-key',
  'if-none-match',
  'x-request-id',
];

/** Responses smaller than this are sent as they are: compressing them costs more than it saves. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * ETags, compression, CORS and security headers. Registered before the routes (their hooks are global) and
 * in this order: the ETag hook runs before compression, so the tag names the uncompressed representation.
 */
export async function registerHttpConventions(app: FastifyInstance, config: Config) {
  // Conditional requests are for reads: a write never answers 304 (a client cannot skip an update that way).
  app.addHook('onRequest', async (req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') delete req.headers['if-none-match'];
  });
  // Weak: the same JSON may be sent gzip-, br- or un-compressed (a strong tag would have to differ per
  // encoding). Hashed from the body, so a tag can only match the same bytes: per tenant, per user, per query.
  // Streams (file downloads) are left alone; @fastify/static sets its own tags on the docs' assets.
  await app.register(etag, { weak: true });
  app.addHook('onSend', async (req, reply) => {
    // Only reads carry a tag: a POST's or PATCH's body is not a representation to revalidate.
    if (req.method !== 'GET' && req.method !== 'HEAD') reply.removeHeader('etag');
  });

  await app.register(compress, {
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    // Bodies up to 64 KB (every API page) are compressed in one synchronous call: brotli 4 takes ~0.06 ms for a
    // 15 KB page, while a zlib stream per response cost ~0.8 ms of the event loop (measured on this 2-core
    // machine, where the plugin's default switches to streams above 8 KB). Larger bodies still stream.
    syncThreshold: 64 * 1024,
    // Compressed request bodies are refused as the JSON parser sees them: nothing needs them, and a small
    // upload inflating to the body limit is work an attacker should not get for free.
    globalDecompression: false,
  });

  if (config.CORS_ORIGINS.length) {
    // Preflights are answered in CORS's onRequest hook, before authentication; its catch-all OPTIONS route
    // (a bare OPTIONS without a preflight's headers) is as public as the preflight itself.
    app.addHook('onRoute', (route) => {
      if (route.url === '*' && route.method === 'OPTIONS') route.config = { ...route.config, auth: 'public' };
    });
    const any = config.CORS_ORIGINS.includes('*');
    await app.register(cors, {
      origin: any ? '*' : config.CORS_ORIGINS,
      credentials: config.CORS_CREDENTIALS,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }

  // Security headers for the HTML pages only (the docs, enabled per route in openapi.ts): a JSON body is not
  // rendered, and `nosniff` below keeps a browser from treating one as HTML or script.
  await app.register(helmet, {
    global: false,
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        // Swagger UI: its own scripts and styles, inline SVG icons as data: URIs, and "Try it out" to this origin.
        // blob: the web app's inbox shows a message's picture from the bytes it fetched with the session's token.
        'script-src': ["'self'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'connect-src': ["'self'"],
        'frame-ancestors': ["'none'"],
        // The service is often reached over plain HTTP (127.0.0.1, a LAN address): upgrading would break it.
        'upgrade-insecure-requests': null,
      },
    },
    frameguard: { action: 'deny' },
  });
  app.addHook('onSend', async (_req, reply) => {
    reply.header('x-content-type-options', 'nosniff');
  });
}
