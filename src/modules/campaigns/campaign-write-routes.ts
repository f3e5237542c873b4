import type { AppDeps } from '../../platform/deps.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { ACTIONS, type CampaignAction, campaign, campaignInput, campaignUpdate } from './schema.js';
import * as service from './service.js';

const actionText: Record<CampaignAction, string> = {
  trigger:
    'Start sending (draft → processing, or scheduled when scheduledAt is in the future). The audience is fixed at start from the segment. Rate-limited (dispatch bucket).',
  pause: 'Pause sending (processing or scheduled → paused); messages in flight finish.',
  resume:
    'Resume (paused → processing, or scheduled when its date is still ahead). Rate-limited (dispatch bucket).',
  cancel: 'Cancel (draft, scheduled, processing or paused → cancelled); pending recipients are skipped.',
};

/** Creating and changing campaigns: create, update, delete, and trigger, pause, resume, cancel. */
export function registerCampaignWriteRoutes(app: RouteApp, deps: AppDeps) {
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
}
