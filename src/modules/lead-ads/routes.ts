import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { lazyLeadAdsKit } from './kit.js';
import * as leads from './leads.js';
import {
  delivery,
  deliveryListQuery,
  deliveryParams,
  formRoute,
  formsQuery,
  integration,
  integrationInput,
  integrationUpdate,
  leadForms,
  oauthCompleteInput,
  oauthStart,
  oauthStartInput,
  routeInput,
  routeUpdate,
  webhookResult,
} from './schema.js';
import * as service from './service.js';

const tags = ['Lead ads'];
const read = { scope: 'lead_ads:read' } as const;
const write = { scope: 'lead_ads:write' } as const;
/** Calls the provider (OAuth, page subscriptions) or hands out a working OAuth state: no dry run (docs/dry-run.md). */
const writeLive = { ...write, dryRun: false } as const;
const exampleRoute = {
  name: 'Spring campaign form',
  leadIntegrationDocumentId: 'k3v9x2m8q1w7e5r4t6y0u2i8',
  targetBoardDocumentId: 'b1v9x2m8q1w7e5r4t6y0u2i8',
  leadFormId: '1234567890',
  fieldMapping: {
    mappings: [
      { source: 'full_name', target: 'contact.name' },
      { source: 'email', target: 'contact.email' },
      { source: 'phone_number', target: 'contact.phone' },
      { source: 'company_name', target: 'title' },
    ],
  },
};

/** Lead ads (BETA): the OAuth connection, integrations, form routes and their deliveries (docs/lead-ads.md). */
export const leadAdsRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyLeadAdsKit(deps.config, deps.db);

  app.post(
    '/lead-ads/oauth/start',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Start connecting a lead ads account (admin)',
        description:
          'BETA: answers the provider authorization URL (OAuth 2 code flow with PKCE S256) and its state: signed, valid 10 minutes, bound to this user and organization. Send the user there; the provider returns to redirectUri with code and state. `integration` reconnects an existing integration whose token expired or was revoked.',
        body: dataBody(oauthStartInput, [{ redirectUri: 'https://app.example.com/lead-ads/callback' }]),
        response: { 200: oauthStart },
      },
    },
    async (req) => service.startOAuth(req.tenant, await kit(), req.body.data),
  );

  app.post(
    '/lead-ads/oauth/complete',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Finish connecting a lead ads account (admin)',
        description:
          'BETA: exchanges the code (with the PKCE verifier) for a token, then for a long-lived one, reads the pages and their tokens and stores them encrypted. Answers the integration, created or (reconnect) updated. Provider failures are 502 with details.provider.',
        body: dataBody(oauthCompleteInput, [{ code: 'AQD…', state: 'eyJv….sig' }]),
        response: { 200: integration },
      },
    },
    async (req) => service.completeOAuth(req.tenant, await kit(), req.body.data),
  );

  app.get(
    '/lead-integrations',
    {
      config: read,
      schema: {
        tags,
        summary: 'List lead ads integrations',
        description:
          'BETA: connected provider accounts with their pages and token status; tokens are never returned.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(integration) },
      },
    },
    async (req) => service.listIntegrations(req.tenant, req.query),
  );

  app.get(
    '/lead-integrations/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One lead ads integration',
        description:
          'BETA: status expired or revoked means the provider refused the token: reconnect with POST /lead-ads/oauth/start and its `integration`.',
        params: idParams,
        response: { 200: integration },
      },
    },
    async (req) => service.getIntegration(req.tenant, req.params.id),
  );

  app.post(
    '/lead-integrations',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Create a lead ads integration from a user token (admin)',
        description:
          'BETA: for a token obtained outside the OAuth step: exchanged for a long-lived one, pages read and stored encrypted. The OAuth step creates integrations itself.',
        body: dataBody(integrationInput, [{ name: 'Acme ads', accessToken: 'EAAG…' }]),
        response: { 201: integration },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createIntegration(req.tenant, await kit(), req.body.data)),
  );

  app.put(
    '/lead-integrations/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Rename a lead ads integration (admin)',
        description: 'BETA: only the name changes here; tokens change by reconnecting.',
        params: idParams,
        body: dataBody(integrationUpdate, [{ name: 'Acme ads (main)' }]),
        response: { 200: integration },
      },
    },
    async (req) => service.updateIntegration(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/lead-integrations/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a lead ads integration (admin)',
        description: 'BETA: refused (422) while form routes use it; its stored tokens go with it.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteIntegration(req.tenant, req.params.id),
  );

  app.get(
    '/lead-integrations/:id/forms',
    {
      config: read,
      schema: {
        tags,
        summary: "The lead forms of an integration's pages",
        description: 'BETA: read from the provider each time (502 with details.provider when it fails).',
        params: idParams,
        querystring: formsQuery,
        response: { 200: leadForms },
      },
    },
    async (req) => service.listForms(req.tenant, await kit(), req.params.id, req.query.pageId),
  );

  app.get(
    '/lead-form-routes',
    {
      config: read,
      schema: {
        tags,
        summary: 'List lead form routes',
        description: 'BETA: which lead form goes to which board, with its field mapping.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(formRoute) },
      },
    },
    async (req) => service.listRoutes(req.tenant, req.query),
  );

  app.get(
    '/lead-form-routes/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One lead form route',
        description: 'BETA: the route and its field mapping.',
        params: idParams,
        response: { 200: formRoute },
      },
    },
    async (req) => service.getRoute(req.tenant, req.params.id),
  );

  app.post(
    '/lead-form-routes',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Route a lead form to a board (admin)',
        description:
          "BETA: subscribes the form's page to leadgen webhooks at the provider (a real side effect). Mapping targets: title, contact.<name|email|phone|city|state|country|address|postal_code> or a field slug of the board's entry phase; an unknown target is a 400 listing the valid ones.",
        body: dataBody(routeInput, [exampleRoute]),
        response: { 201: formRoute },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createRoute(req.tenant, await kit(), req.body.data)),
  );

  app.put(
    '/lead-form-routes/:id',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Update a lead form route (admin)',
        description:
          "BETA: partial. Subscribes the form's page again; a page no route needs any more is unsubscribed at the provider.",
        params: idParams,
        body: dataBody(routeUpdate, [{ name: 'Spring form (sales board)' }]),
        response: { 200: formRoute },
      },
    },
    async (req) => service.updateRoute(req.tenant, await kit(), req.params.id, req.body.data),
  );

  app.delete(
    '/lead-form-routes/:id',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Delete a lead form route (admin)',
        description:
          "BETA: unsubscribes the page's leadgen webhooks at the provider when no other route needs the page.",
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteRoute(req.tenant, await kit(), req.params.id),
  );

  app.get(
    '/lead-form-routes/:id/deliveries',
    {
      config: read,
      schema: {
        tags,
        summary: 'The leads a route received, newest first',
        description:
          'BETA: each lead with its status (pending, retrying, succeeded, failed), attempts, the reason of the last failure and the card made.',
        params: idParams,
        querystring: deliveryListQuery,
        response: { 200: paginatedSchema(delivery) },
      },
    },
    async (req) => leads.listDeliveries(req.tenant, req.params.id, req.query),
  );

  app.post(
    '/lead-form-routes/:id/deliveries/:deliveryId/redeliver',
    {
      config: write,
      schema: {
        tags,
        summary: 'Process a failed lead again (admin)',
        description:
          'BETA: queues the lead again with the route as it is now; only failed deliveries (else 422).',
        params: deliveryParams,
        response: { 200: delivery },
      },
    },
    async (req) => leads.redeliver(req.tenant, deps.jobs, deps.config, req.params.id, req.params.deliveryId),
  );
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
