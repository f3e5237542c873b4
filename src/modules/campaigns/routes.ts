import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  ACTIONS,
  type CampaignAction,
  campaign,
  campaignInput,
  campaignUpdate,
  recipient,
  statsResponse,
  suppression,
  suppressionInput,
} from './schema.js';
import * as service from './service.js';

const tags = ['Campaigns'];

const actionText: Record<CampaignAction, string> = {
  trigger:
    'Start sending (draft → processing, or scheduled when scheduledAt is in the future). The audience is fixed at start from the segment. Rate-limited (dispatch bucket).',
  pause: 'Pause sending (processing or scheduled → paused); messages in flight finish.',
  resume:
    'Resume (paused → processing, or scheduled when its date is still ahead). Rate-limited (dispatch bucket).',
  cancel: 'Cancel (draft, scheduled, processing or paused → cancelled); pending recipients are skipped.',
};

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

  app.post(
    '/campaigns',
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Create a campaign (a draft)',
        description:
          'channel, segment and template are documentIds; the template must fit the channel (an e-mail template, or a WhatsApp template of that channel); SMS campaigns send messageConfig.text.',
        body: dataBody(campaignInput, [
          {
            name: 'Spring newsletter',
            channel: 'k3v9x2m8q1w7e5r4t6y0u2i8',
            segment: 'p0o9i8u7y6t5r4e3w2q1a2s3',
            template: 'z1x2c3v4b5n6m7l8k9j0h1g2',
            variables: { season: 'spring' },
          },
        ]),
        response: { 201: campaign },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createCampaign(req.tenant, req.body.data)),
  );

  app.put(
    '/campaigns/:id',
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Update a campaign (draft or scheduled only); partial',
        description: 'Other statuses are a 422 naming the status and the allowed actions.',
        params: idParams,
        body: dataBody(campaignUpdate, [
          { name: 'Spring newsletter (final)', scheduledAt: '2030-03-20T09:00:00Z' },
        ]),
        response: { 200: campaign },
      },
    },
    async (req) => service.updateCampaign(req.tenant, deps.jobs, req.params.id, req.body.data),
  );

  app.delete(
    '/campaigns/:id',
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Delete a campaign (not while processing or paused)',
        description: 'Its recipient ledger goes with it; suppressions it caused stay.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteCampaign(req.tenant, req.params.id),
  );

  for (const action of ACTIONS) {
    const dispatch = action === 'trigger' || action === 'resume';
    app.post(
      `/campaigns/:id/${action}`,
      {
        config: { scope: 'campaigns:write', ...(dispatch ? strictBucket(deps.config, 'dispatch') : {}) },
        schema: {
          tags,
          summary: `${action[0].toUpperCase()}${action.slice(1)} a campaign`,
          description: `${actionText[action]} An action the status does not allow is a 422 with details.campaignStatus and details.allowed.`,
          params: idParams,
          response: { 200: campaign },
        },
      },
      async (req) => service.runAction(req.tenant, deps.jobs, req.params.id, action),
    );
  }

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

  app.get(
    '/suppressions',
    {
      config: { scope: 'campaigns:read' },
      schema: {
        tags,
        summary: 'The suppression list',
        description:
          'Addresses no campaign sends to: unsubscribes, hard bounces, complaints and manual entries.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(suppression) },
      },
    },
    async (req) => service.listSuppressions(req.tenant, req.query),
  );

  app.post(
    '/suppressions',
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Suppress an address',
        description: 'E-mail addresses are compared lower-cased, phone numbers as + and digits.',
        body: dataBody(suppressionInput, [{ address: 'no-mail@example.com', reason: 'manual' }]),
        response: { 201: suppression },
      },
    },
    async (req, reply) => reply.code(201).send(await service.addSuppression(req.tenant, req.body.data)),
  );

  app.delete(
    '/suppressions/:id',
    {
      config: { scope: 'campaigns:write' },
      schema: {
        tags,
        summary: 'Remove an address from the suppression list (admin)',
        description: 'Only with the person’s renewed consent.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteSuppression(req.tenant, req.params.id),
  );
};
