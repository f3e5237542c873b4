import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted } from '../../platform/http/schemas.js';
import { lazyChannelKit } from '../channels/index.js';
import { registerMediaHandleRoutes } from './media-handle-routes.js';
import { tags } from './route-docs.js';
import {
  channelParams,
  syncResult,
  templateParams,
  whatsappTemplate,
  whatsappTemplateInput,
} from './schema.js';
import * as service from './service.js';

export const templateRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyChannelKit(deps.config, deps.db);
  app.get(
    '/chat-channels/:channelId/templates',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags,
        summary: "List a channel's message templates",
        description:
          'BETA: WhatsApp templates as last synced (status APPROVED, PENDING, REJECTED, PAUSED or DISABLED); e-mail and SMS channels have none.',
        params: channelParams,
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(whatsappTemplate) },
      },
    },
    async (req) => service.listTemplates(req.tenant, req.params.channelId, req.query),
  );

  app.post(
    '/chat-channels/:channelId/templates',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags,
        summary: 'Submit a WhatsApp template to the provider (admin)',
        description:
          'BETA: real side effect: the template is submitted for review at the provider and stored as PENDING (sync later for its status). A provider refusal is a 502 with its message.',
        params: channelParams,
        body: dataBody(whatsappTemplateInput, [
          {
            name: 'spring_sale',
            language: 'pt_BR',
            category: 'MARKETING',
            components: [
              { type: 'BODY', text: 'Olá {{1}}, 20% off até domingo!', example: { body_text: [['Ana']] } },
            ],
          },
        ]),
        response: { 201: whatsappTemplate },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await service.createTemplate(req.tenant, await kit(), req.params.channelId, req.body.data)),
  );

  app.delete(
    '/chat-channels/:channelId/templates/:id',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags,
        summary: 'Delete a WhatsApp template here and at the provider (admin)',
        description:
          'BETA: real side effect: the template is deleted at the provider (every language of its name, as the Cloud API does).',
        params: templateParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteTemplate(req.tenant, await kit(), req.params.channelId, req.params.id),
  );

  app.post(
    '/chat-channels/:channelId/templates/sync',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags,
        summary: "Pull the provider's templates into the channel (admin)",
        description:
          'BETA: adds new templates, refreshes status and components, removes those deleted at the provider.',
        params: channelParams,
        response: { 200: syncResult },
      },
    },
    async (req) => service.syncTemplates(req.tenant, await kit(), req.params.channelId),
  );

  registerMediaHandleRoutes(app, kit);
};
