import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { admins, tags } from './route-docs.js';
import {
  subscription,
  subscriptionCreateInput,
  subscriptionUpdateInput,
  subscriptionWithSecret,
} from './schema.js';
import * as service from './service.js';

/** Creating and changing webhook subscriptions: create, update, delete. */
export function registerSubscriptionWriteRoutes(app: RouteApp, deps: AppDeps) {
  app.post(
    '/webhook-subscriptions',
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Subscribe a URL to events (the secret is shown once)',
        description:
          'BETA: Each event is POSTed as `{ type, timestamp, data }` with the Standard Webhooks headers `webhook-id`, ' +
          '`webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256>` keyed with the returned secret; ' +
          'retried with exponential backoff, in order per subscription; the subscription is disabled after ' +
          'repeated failures. ' +
          admins,
        body: dataBody(subscriptionCreateInput, [
          {
            url: 'https://hooks.example.com/crm',
            events: ['card.created', 'card.phase_changed', 'card.won'],
          },
        ]),
        response: { 201: subscriptionWithSecret },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createSubscription(deps, req.tenant, req.body.data)),
  );

  app.put(
    '/webhook-subscriptions/:id',
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Change a webhook subscription, or enable it again',
        description: `${admins} \`enabled: true\` re-enables one disabled after repeated failures.`,
        params: idParams,
        body: dataBody(subscriptionUpdateInput, [{ enabled: true }]),
        response: { 200: subscription },
      },
    },
    async (req) => service.updateSubscription(deps, req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/webhook-subscriptions/:id',
    {
      config: { scope: 'webhooks:write' },
      schema: {
        tags,
        summary: 'Delete a webhook subscription and its delivery log',
        description: admins,
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteSubscription(req.tenant, req.params.id),
  );
}
