import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import {
  registerIntegrationFormRoutes,
  registerIntegrationRoutes,
  registerOAuthRoutes,
} from './integration-routes.js';
import { lazyLeadAdsKit } from './kit.js';
import { registerDeliveryRoutes, registerLeadFormRoutes } from './lead-form-routes.js';
import * as leads from './leads.js';
import { tags } from './route-docs.js';
import { webhookResult } from './schema.js';

/** Lead ads (BETA): the OAuth connection, integrations, form routes and their deliveries (docs/lead-ads.md). */
export const leadAdsRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyLeadAdsKit(deps.config, deps.db);
  registerOAuthRoutes(app, kit);
  registerIntegrationRoutes(app, kit);
  registerIntegrationFormRoutes(app, kit);
  registerLeadFormRoutes(app, kit);
  registerDeliveryRoutes(app, deps);
};

/** The provider's webhook: public, verified by its signature; this scope keeps the raw body for the HMAC. */
export const leadAdsWebhookRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
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

  app.get(
    '/webhooks/lead-ads',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'Lead ads webhook verification handshake (public)',
        description:
          'BETA: answers hub.challenge when hub.mode is subscribe and hub.verify_token is CRM_LEAD_ADS_VERIFY_TOKEN; else 403.',
        security: [],
        querystring: z.strictObject({
          'hub.mode': z.string().max(50).optional(),
          'hub.verify_token': z.string().max(4096).optional(),
          'hub.challenge': z.string().max(4096).optional(),
        }),
        produces: ['text/plain'],
        response: { 200: z.string() },
      },
    },
    async (req, reply) =>
      reply
        .type('text/plain')
        .send(
          leads.handshake(
            deps.config,
            req.query['hub.mode'],
            req.query['hub.verify_token'],
            req.query['hub.challenge'],
          ),
        ),
  );

  app.post(
    '/webhooks/lead-ads',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'Lead ads leadgen webhook (signed; public)',
        description:
          'BETA: verified by X-Hub-Signature-256 (HMAC-SHA256 of the raw body with CRM_LEAD_ADS_APP_SECRET). Each leadgen change is queued for every organization routing its page form; a lead an organization already has is skipped.',
        security: [],
        headers: z.object({ 'x-hub-signature-256': z.string().max(200).optional() }),
        body: z.looseObject({}),
        response: { 200: webhookResult },
      },
    },
    async (req) =>
      leads.receiveWebhook(
        deps.db,
        deps.config,
        deps.jobs,
        req.rawBody ?? Buffer.alloc(0),
        req.headers['x-hub-signature-256'],
      ),
  );
};
