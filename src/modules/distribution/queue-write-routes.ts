import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { distributionQueue, queueCreateInput, queueUpdateInput } from './schema.js';
import * as service from './service.js';

/** Changes to distribution queues (admin): create, change, delete. */
export function registerQueueWriteRoutes(app: RouteApp) {
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
}
