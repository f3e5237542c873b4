import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  delivery,
  deliveryListQuery,
  subscription,
  subscriptionCreateInput,
  subscriptionListQuery,
  subscriptionUpdateInput,
  subscriptionWithSecret,
} from './schema.js';
import * as service from './service.js';

const tags = ['Webhooks'];
const admins = 'BETA: organization admins only.';

export const webhookRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/webhook-subscriptions',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        summary: 'List webhook subscriptions',
        description: admins,
        querystring: subscriptionListQuery,
        response: { 200: paginatedSchema(subscription) },
      },
    },
    async (req) => service.listSubscriptions(req.tenant, req.query),
  );

  app.get(
    '/webhook-subscriptions/:id',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        summary: 'One webhook subscription',
        description: admins,
        params: idParams,
        response: { 200: subscription },
      },
    },
    async (req) => service.getSubscription(req.tenant, req.params.id),
  );

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

  app.get(
    '/webhook-subscriptions/:id/deliveries',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        summary: 'The delivery log of a subscription, newest first',
        description: `${admins} Each event's status, attempts, last HTTP status or error, and the body sent.`,
        params: idParams,
        querystring: deliveryListQuery,
        response: { 200: paginatedSchema(delivery) },
      },
    },
    async (req) => service.listDeliveries(req.tenant, req.params.id, req.query),
  );
};
