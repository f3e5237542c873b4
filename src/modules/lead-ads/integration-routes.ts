import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import type { LeadAdsKit } from './kit.js';
import { read, tags, write, writeLive } from './route-docs.js';
import {
  formsQuery,
  integration,
  integrationInput,
  integrationUpdate,
  leadForms,
  oauthCompleteInput,
  oauthStart,
  oauthStartInput,
} from './schema.js';
import * as service from './service.js';

/** Connecting a provider account: the OAuth code flow that creates (or reconnects) an integration. */
export function registerOAuthRoutes(app: RouteApp, kit: () => Promise<LeadAdsKit>) {
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
}

/** The integrations (connected provider accounts): list, read, create from a token, rename, delete. */
export function registerIntegrationRoutes(app: RouteApp, kit: () => Promise<LeadAdsKit>) {
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
}

/** The lead forms of an integration's pages, read from the provider: what a form route can route. */
export function registerIntegrationFormRoutes(app: RouteApp, kit: () => Promise<LeadAdsKit>) {
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
}
