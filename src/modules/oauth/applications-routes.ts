import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { deleted, idParams } from '../../platform/http/schemas.js';
import { connectedApplication, tokenInfo } from './schema.js';
import type { OauthServer } from './server.js';
import * as service from './service.js';

const tags = ['OAuth'];

/** Settings' connected applications, and what an agent server asks of a token (docs/mcp.md "Sign-in"). */
export const oauthApplicationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; server: OauthServer }> = async (
  app,
  { deps, server },
) => {
  app.get(
    '/oauth/applications',
    {
      config: { auth: 'user', scope: 'account:read' },
      schema: {
        tags,
        operationId: 'listConnectedApplications',
        summary: 'The applications you connected (OAuth grants)',
        response: { 200: z.object({ data: z.array(connectedApplication) }) },
      },
    },
    async (req) => ({ data: await service.listApplications(deps.db, req.principal!.userId) }),
  );

  app.delete(
    '/oauth/applications/:id',
    {
      config: { auth: 'user', scope: 'account:write' },
      schema: {
        tags,
        operationId: 'revokeConnectedApplication',
        summary: 'Disconnect an application',
        description: 'Its grant, refresh and access tokens are deleted: its next call gets 401.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.revokeApplication(deps.db, req.principal!.userId, req.params.id),
  );

  app.get(
    '/oauth/token-info',
    {
      // Any OAuth access token may read what it is for: an agent server checks the audience with it.
      config: { auth: 'user', scope: [] },
      schema: {
        tags,
        operationId: 'getOauthTokenInfo',
        summary: 'The agent server, organization and scopes of the OAuth access token sent',
        description:
          'For agent servers (crm-mcp): a token issued for another resource must be refused. 404 for a bearer that is not an OAuth access token.',
        response: { 200: tokenInfo },
      },
    },
    async (req) => service.tokenInfo(deps.db, server, req.headers.authorization),
  );
};
