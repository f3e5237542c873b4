import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { oauthApplicationRoutes } from './applications-routes.js';
import { consentDecision, consentOutcome, consentRequest, uidParams } from './schema.js';
import type { OauthServer } from './server.js';
import * as service from './service.js';

const tags = ['OAuth'];

/**
 * The REST side of sign-in for remote agents (docs/mcp.md "Sign-in"): the consent page's two calls, the
 * connected applications of Settings, and what the agent server asks of a token. The authorization server's
 * own endpoints (/.well-known/oauth-authorization-server, /oauth/*) are mounted by mount.ts.
 */
export const oauthRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; server: OauthServer }> = async (
  app,
  { deps, server },
) => {
  app.get(
    '/oauth/interactions/:uid',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'openOauthInteraction',
        summary: 'Open a sign-in request in the web application',
        description:
          'Where the authorization server sends the browser: 303 to the consent page, /app/oauth/consent?uid=…',
        params: uidParams,
        response: { 303: z.null().describe('to /app/oauth/consent') },
      },
    },
    async (req, reply) =>
      reply
        .code(303)
        .header('location', `/app/oauth/consent?uid=${encodeURIComponent(req.params.uid)}`)
        .send(null),
  );

  app.get(
    '/oauth/interactions/:uid/consent',
    {
      config: { auth: 'user', scope: 'account:read' },
      schema: {
        tags,
        operationId: 'getOauthConsentRequest',
        summary: 'What an application asks (the consent page)',
        description:
          'The client, the agent server (resource) and the scopes asked, and the organizations the signed-in person may pick. A session of the web application only, from the browser that started the sign-in (its interaction cookie).',
        params: uidParams,
        response: { 200: consentRequest },
      },
    },
    async (req, reply) =>
      service.consentRequest(
        deps.db,
        await server.providerFor(req),
        { req: req.raw, res: reply.raw },
        req.params.uid,
        req.principal!,
      ),
  );

  app.post(
    '/oauth/interactions/:uid/consent',
    {
      config: { auth: 'user', scope: 'account:write' },
      schema: {
        tags,
        operationId: 'decideOauthConsent',
        summary: 'Approve or decline an application',
        description:
          'Approving binds the application to one organization of the person and to the scopes shown; the answer says where the browser goes next (back to the application, with a code or access_denied).',
        params: uidParams,
        body: consentDecision,
        response: { 200: consentOutcome },
      },
    },
    async (req, reply) =>
      service.decideConsent(
        deps.db,
        await server.providerFor(req),
        { req: req.raw, res: reply.raw },
        req.params.uid,
        req.principal!,
        req.body,
      ),
  );

  await app.register(oauthApplicationRoutes, { deps, server });
};
