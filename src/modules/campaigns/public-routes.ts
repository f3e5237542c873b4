import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import { lazyChannelKit } from '../channels/index.js';
import { registerProviderWebhookRoutes } from './provider-webhook-routes.js';
import * as pub from './public.js';
import { tags } from './route-docs.js';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const tokenParams = z.object({ token: z.string().min(1).max(200) });

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

const unknownLink = () => new AppError('NotFoundError', 'This unsubscribe link is not valid');

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">${body}</body></html>`;

/**
 * Public campaign routes: no token, no tenant header. Signed tokens (tracking, unsubscribe) or signed bodies
 * (webhooks) say which organization they concern. The webhooks need the raw body for their HMAC: this scope
 * parses JSON itself and keeps the bytes; it also takes the form body of RFC 8058 one-click unsubscribes.
 */
export const campaignPublicRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyChannelKit(deps.config, deps.db);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    req.rawBody = body;
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch {
      done(new AppError('BadRequestError', 'Malformed JSON in request body'), undefined);
    }
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_req, body: string, done) => done(null, Object.fromEntries(new URLSearchParams(body))),
  );

  app.get(
    '/track/open/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'Open pixel of a campaign e-mail (public)',
        description: 'Always answers a 1×1 GIF; a valid signed token records the first open.',
        security: [],
        params: tokenParams,
        produces: ['image/gif'],
        response: { 200: z.any().describe('A 1×1 transparent GIF') },
      },
    },
    async (req, reply) => {
      await pub.trackOpen(deps.db, req.params.token);
      return reply.type('image/gif').header('cache-control', 'no-store, private').send(PIXEL);
    },
  );

  app.get(
    '/track/click/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'Click redirect of a campaign e-mail link (public)',
        description:
          'Redirects (302) to u when the token signs exactly that URL; otherwise 404 (never an open redirect).',
        security: [],
        params: tokenParams,
        querystring: z.strictObject({ u: z.string().min(1).max(4096) }),
        response: { 302: z.null().describe('Redirect to the link') },
      },
    },
    async (req, reply) => {
      const url = await pub.trackClick(deps.db, req.params.token, req.query.u);
      if (!url) throw new AppError('NotFoundError', 'Unknown link');
      return reply.header('cache-control', 'no-store, private').redirect(url, 302);
    },
  );

  app.get(
    '/unsubscribe/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'Unsubscribe page (public)',
        description:
          'Shows a confirmation button; a GET never unsubscribes (mail scanners follow links). Mail clients use the RFC 8058 one-click POST.',
        security: [],
        params: tokenParams,
        produces: ['text/html'],
        response: { 200: z.string() },
      },
    },
    async (req, reply) => {
      if (!(await pub.checkUnsubscribe(deps.db, req.params.token))) throw unknownLink();
      return reply
        .type('text/html; charset=utf-8')
        .send(
          page(
            'Unsubscribe',
            `<h1>Unsubscribe</h1><p>Stop receiving these messages?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
          ),
        );
    },
  );

  app.post(
    '/unsubscribe/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'One-click unsubscribe (RFC 8058; public)',
        description:
          'Body List-Unsubscribe=One-Click (form-encoded) or empty. The address joins the suppression list of the organization that sent the message.',
        security: [],
        params: tokenParams,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: z.record(z.string(), z.string()).nullish(),
        produces: ['text/html'],
        response: { 200: z.string() },
      },
    },
    async (req, reply) => {
      if (!(await pub.unsubscribe(deps.db, req.params.token))) throw unknownLink();
      return reply
        .type('text/html; charset=utf-8')
        .send(page('Unsubscribed', '<h1>You are unsubscribed.</h1>'));
    },
  );

  registerProviderWebhookRoutes(app, deps, kit);
};
