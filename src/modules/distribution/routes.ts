import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { idParams } from '../../platform/http/schemas.js';
import { registerQueueWriteRoutes } from './queue-write-routes.js';
import { tags } from './route-docs.js';
import { distributionQueue, queueListQuery } from './schema.js';
import * as service from './service.js';

export const distributionRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/distribution-queues',
    {
      config: { scope: 'distribution:read' },
      schema: {
        tags,
        summary: 'List distribution queues',
        description:
          'BETA: Each queue assigns the new unassigned cards of its board, or the new inbound conversations of its ' +
          'inbox, to its active members.',
        querystring: queueListQuery,
        response: { 200: paginatedSchema(distributionQueue) },
      },
    },
    async (req) => service.listQueues(req.tenant, req.query),
  );

  app.get(
    '/distribution-queues/:id',
    {
      config: { scope: 'distribution:read' },
      schema: {
        tags,
        summary: 'One distribution queue',
        description: "BETA: With each member's weight, state, assigned count and last assignment.",
        params: idParams,
        response: { 200: distributionQueue },
      },
    },
    async (req) => service.getQueue(req.tenant, req.params.id),
  );

  registerQueueWriteRoutes(app);
};
