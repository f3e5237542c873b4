import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody } from '../../platform/http/schemas.js';
import { registerSegmentDefinitionRoutes } from './definition-routes.js';
import { registerSegmentItemRoutes } from './item-routes.js';
import { tags } from './route-docs.js';
import { segment, segmentInput } from './schema.js';
import * as service from './service.js';

export const segmentRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/segments',
    {
      config: { scope: 'segments:read' },
      schema: {
        tags,
        summary: 'List segments, each with its live contactCount',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(segment) },
      },
    },
    async (req) => service.listSegments(req.tenant, req.query),
  );

  registerSegmentDefinitionRoutes(app);

  app.post(
    '/segments',
    {
      config: { scope: 'segments:write' },
      schema: {
        tags,
        summary: 'Create a segment (member)',
        body: dataBody(segmentInput, [
          {
            name: 'São Paulo leads with e-mail',
            description: 'People in São Paulo we can e-mail',
            filters: {
              logic: 'AND',
              conditions: [
                { field: 'city', op: 'eq', value: 'São Paulo' },
                { field: 'email', op: 'notEmpty' },
              ],
            },
          },
        ]),
        response: { 201: segment },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createSegment(req.tenant, req.body.data)),
  );

  registerSegmentItemRoutes(app);
};
