import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import { lazyChannelKit } from '../channels/index.js';
import * as pub from './public.js';
import { emailEvents, eventsResult } from './schema.js';

const tags = ['Campaigns'];
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const tokenParams = z.object({ token: z.string().min(1).max(200) });
const channelParams = z.object({ channelId: z.string().min(1).max(64) });

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

  app.post(
    '/webhooks/email-events/:channelId',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'E-mail provider events for a channel (signed; public)',
        description:
          'Body [{ type: delivered|opened|clicked|bounced|complained, messageId, timestamp }], header X-CRM-Signature: sha256=<hex HMAC-SHA256 of the raw body with the channel webhookSecret>. Hard bounces and complaints join the suppression list.',
        security: [],
        params: channelParams,
        headers: z.object({ 'x-crm-signature': z.string().max(200).optional() }),
        body: emailEvents,
        response: { 200: eventsResult },
      },
    },
    async (req) =>
      pub.emailEvents(
        deps.db,
        await kit(),
        req.params.channelId,
        req.rawBody ?? Buffer.alloc(0),
        req.headers['x-crm-signature'],
        req.body,
      ),
  );

  app.get(
    '/webhooks/whatsapp/:channelId',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'WhatsApp webhook verification handshake (public)',
        description:
          'Answers hub.challenge when hub.mode is subscribe and hub.verify_token is the channel verify token; else 403.',
        security: [],
        params: channelParams,
        querystring: z.strictObject({
          'hub.mode': z.string().max(50).optional(),
          'hub.verify_token': z.string().max(4096).optional(),
          'hub.challenge': z.string().max(4096).optional(),
        }),
        produces: ['text/plain'],
        response: { 200: z.string() },
      },
    },
    async (req, reply) => {
      const challenge = await pub.whatsappHandshake(
        deps.db,
        await kit(),
        req.params.channelId,
        req.query['hub.mode'],
        req.query['hub.verify_token'],
        req.query['hub.challenge'],
      );
      return reply.type('text/plain').send(challenge);
    },
  );

  app.post(
    '/webhooks/whatsapp/:channelId',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'WhatsApp Cloud API webhook (signed; public)',
        description:
          'Verified by X-Hub-Signature-256 (HMAC-SHA256 of the raw body with the channel app secret). Message statuses of campaign sends count as delivered (delivered), opened (read) or failed (failed). Inbound messages (text, media, template replies) go to the inbox, idempotent on the provider message id; statuses of conversation messages update them. Answers 200 once everything is stored.',
        security: [],
        params: channelParams,
        headers: z.object({ 'x-hub-signature-256': z.string().max(200).optional() }),
        body: z.looseObject({}),
        response: { 200: eventsResult },
      },
    },
    async (req) =>
      pub.whatsappEvents(
        deps.db,
        await kit(),
        req.params.channelId,
        req.rawBody ?? Buffer.alloc(0),
        req.headers['x-hub-signature-256'],
      ),
  );
};
