import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { idParams } from '../../platform/http/schemas.js';
import { admins, tags } from './route-docs.js';
import { delivery, deliveryListQuery, subscription, subscriptionListQuery } from './schema.js';
import * as service from './service.js';
import { registerSubscriptionWriteRoutes } from './subscription-write-routes.js';

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

  registerSubscriptionWriteRoutes(app, deps);

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
