import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { idParams } from '../../platform/http/schemas.js';
import { registerBoardChannelRoutes } from './board-channel-routes.js';
import { registerChannelWriteRoutes } from './channel-write-routes.js';
import { lazyChannelKit } from './credentials.js';
import { tags } from './route-docs.js';
import { channel, channelHealth } from './schema.js';
import * as service from './service.js';

export const channelRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyChannelKit(deps.config, deps.db);
  app.get(
    '/chat-channels',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags,
        summary: 'List chat channels',
        description:
          'BETA: WhatsApp, e-mail and SMS channels of the organization; credentials are never returned.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(channel) },
      },
    },
    async (req) => service.listChannels(req.tenant, req.query),
  );

  app.get(
    '/chat-channels/:id',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags,
        summary: 'One chat channel',
        description: 'BETA: settings, hasCredentials and linked boards.',
        params: idParams,
        response: { 200: channel },
      },
    },
    async (req) => service.getChannel(req.tenant, req.params.id),
  );

  registerChannelWriteRoutes(app, kit);

  app.get(
    '/chat-channels/:id/health',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags,
        summary: 'Check a channel against its provider',
        description:
          'BETA: makes a real provider call (WhatsApp phone number, SMS account, SMTP greeting) and reports its outcome and latency.',
        params: idParams,
        response: { 200: channelHealth },
      },
    },
    async (req) => service.channelHealth(req.tenant, await kit(), req.params.id),
  );

  registerBoardChannelRoutes(app);
};
