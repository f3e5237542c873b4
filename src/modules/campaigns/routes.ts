import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { idParams } from '../../platform/http/schemas.js';
import { registerCampaignWriteRoutes } from './campaign-write-routes.js';
import { tags } from './route-docs.js';
import { campaign, recipient, statsResponse } from './schema.js';
import * as service from './service.js';
import { registerSuppressionRoutes } from './suppression-routes.js';

export const campaignRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/campaigns',
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'List campaigns',
        description:
          'Filters and sort on name, campaignStatus, scheduledAt, startedAt, completedAt, createdAt.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(campaign) },
      },
    },
    async (req) => service.listCampaigns(req.tenant, req.query),
  );

  app.get(
    '/campaigns/:id',
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'One campaign with its stats',
        description: 'CampaignStats counts the fixed audience.',
        params: idParams,
        response: { 200: campaign },
      },
    },
    async (req) => service.getCampaign(req.tenant, req.params.id),
  );

  registerCampaignWriteRoutes(app, deps);

  app.get(
    '/campaigns/:id/stats',
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'Campaign stats (spec shape)',
        description:
          'totalAudience, sent, failed, pending and readRate = opened ÷ sent (0 when nothing was sent).',
        params: idParams,
        response: { 200: statsResponse },
      },
    },
    async (req) => service.campaignStats(req.tenant, req.params.id),
  );

  app.get(
    '/campaigns/:id/recipients',
    {
      config: { scope: ['campaigns:read', 'contacts:read'] },
      schema: {
        tags,
        summary: "A campaign's recipients: status, errors and engagement",
        description: 'Where failed sends say why. Filters on status, address, sentAt.',
        params: idParams,
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(recipient) },
      },
    },
    async (req) => service.listRecipients(req.tenant, req.params.id, req.query),
  );

  registerSuppressionRoutes(app);
};
