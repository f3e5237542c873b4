import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { distributionQueue, queueCreateInput, queueListQuery, queueUpdateInput } from './schema.js';
import * as service from './service.js';

const tags = ['Distribution'];

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

  app.post(
    '/distribution-queues',
    {
      config: { scope: 'distribution:write' },
      schema: {
        tags,
        summary: 'Create a distribution queue for a board or an inbox (admin)',
        description:
          'BETA: Give exactly one of board (documentId) or inbox (numeric id). From then on a card created on the ' +
          'board without assignees (API, public form, import), or a new conversation arriving in the inbox, is ' +
          'assigned in the same transaction: round_robin in turn, weighted in proportion to weight, least_open to ' +
          'the member with the fewest open cards on the board (open conversations of the inbox). One queue per ' +
          'board or inbox (400 for a second); an inbox queue takes no viewers (they cannot answer).',
        body: dataBody(queueCreateInput, [
          {
            name: 'SDRs',
            board: 'q8sf3qb2ch3wqzje8lu0xuxu',
            strategy: 'weighted',
            members: [
              { membership: 'k3m0v9x2c8b7n6z5a4s3d2f1', weight: 2 },
              { membership: 'p0o9i8u7y6t5r4e3w2q1a2s3', weight: 1 },
            ],
          },
          {
            name: 'Support',
            inbox: 3,
            strategy: 'least_open',
            members: [{ membership: 'k3m0v9x2c8b7n6z5a4s3d2f1' }, { membership: 'p0o9i8u7y6t5r4e3w2q1a2s3' }],
          },
        ]),
        response: { 201: distributionQueue },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createQueue(req.tenant, req.body.data)),
  );

  app.put(
    '/distribution-queues/:id',
    {
      config: { scope: 'distribution:write' },
      schema: {
        tags,
        summary: 'Change a distribution queue (admin)',
        description:
          'BETA: Name, strategy, active, members (the list is replaced; those who stay keep their turn).',
        params: idParams,
        body: dataBody(queueUpdateInput, [{ strategy: 'round_robin', active: true }]),
        response: { 200: distributionQueue },
      },
    },
    async (req) => service.updateQueue(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/distribution-queues/:id',
    {
      config: { scope: 'distribution:write' },
      schema: {
        tags,
        summary: 'Delete a distribution queue (admin)',
        description:
          'BETA: New cards of its board (conversations of its inbox) stay unassigned again; those already ' +
          'assigned keep their assignees.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteQueue(req.tenant, req.params.id),
  );
};
