import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { contact } from '../contacts/index.js';
import {
  filterOptions,
  previewInput,
  previewResult,
  segment,
  segmentCount,
  segmentInput,
  segmentUpdate,
} from './schema.js';
import * as service from './service.js';

const tags = ['Segments'];

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

  app.get(
    '/segments/filter-options',
    {
      config: { scope: 'segments:read' },
      schema: {
        tags,
        summary: 'What segment conditions can use: fields, operators, owners, teams, custom-field keys',
        response: { 200: filterOptions },
      },
    },
    async (req) => service.filterOptions(req.tenant),
  );

  app.post(
    '/segments/preview',
    {
      config: { scope: ['segments:read', 'contacts:read'] },
      schema: {
        tags,
        summary: 'Count and first page of the contacts a definition matches, without saving it',
        description:
          'Body: the spec shape `{ rules: { condition, rules: [{ field, operator, value }] } }` or the stored ' +
          'shape `{ filters, requiredSegments?, excludedSegments? }`; optional `pagination { page, pageSize }`.',
        body: previewInput.meta({
          examples: [
            {
              rules: {
                condition: 'AND',
                rules: [
                  { field: 'city', operator: 'equal', value: 'São Paulo' },
                  { field: 'email', operator: 'is_not_empty' },
                ],
              },
              pagination: { page: 1, pageSize: 25 },
            },
          ],
        }),
        response: { 200: previewResult(contact) },
      },
    },
    async (req) => service.previewSegment(req.tenant, req.body),
  );

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

  app.get(
    '/segments/:id',
    {
      config: { scope: 'segments:read' },
      schema: { tags, summary: 'One segment', params: idParams, response: { 200: segment } },
    },
    async (req) => service.getSegment(req.tenant, req.params.id),
  );

  app.put(
    '/segments/:id',
    {
      config: { scope: 'segments:write' },
      schema: {
        tags,
        summary: 'Update a segment; only the keys sent change (member)',
        params: idParams,
        body: dataBody(segmentUpdate, [{ active: false }]),
        response: { 200: segment },
      },
    },
    async (req) => service.updateSegment(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/segments/:id',
    {
      config: { scope: 'segments:write' },
      schema: {
        tags,
        summary: 'Delete a segment (member); 422 while other segments link to it',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteSegment(req.tenant, req.params.id),
  );

  app.get(
    '/segments/:id/count',
    {
      config: { scope: 'segments:read' },
      schema: {
        tags,
        summary: 'How many contacts match the segment now',
        params: idParams,
        response: { 200: segmentCount },
      },
    },
    async (req) => service.countSegment(req.tenant, req.params.id),
  );

  app.get(
    '/segments/:id/contacts',
    {
      config: { scope: ['segments:read', 'contacts:read'] },
      schema: {
        tags,
        summary: 'The contacts matching the segment, paginated (takes the contact list filters and sort)',
        params: idParams,
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(contact) },
      },
    },
    async (req) => service.segmentContacts(req.tenant, req.params.id, req.query),
  );
};
