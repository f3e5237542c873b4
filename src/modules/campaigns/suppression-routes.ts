import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { suppression, suppressionInput } from './schema.js';
import * as service from './service.js';

/** The suppression list: the addresses no campaign sends to. */
export function registerSuppressionRoutes(app: RouteApp) {
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
}
