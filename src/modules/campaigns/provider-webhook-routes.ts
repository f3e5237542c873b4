import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import type { ChannelKit } from '../channels/index.js';
import * as pub from './public.js';
import { tags } from './route-docs.js';
import { emailEvents, eventsResult } from './schema.js';

const channelParams = z.object({ channelId: z.string().min(1).max(64) });

/**
 * The providers' signed webhooks: e-mail events, and WhatsApp's handshake and events. Their HMAC is over
 * the raw body that the JSON parser of public-routes.ts keeps (req.rawBody).
 */
export function registerProviderWebhookRoutes(app: RouteApp, deps: AppDeps, kit: () => Promise<ChannelKit>) {
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
        deps.jobs,
      ),
  );
}
