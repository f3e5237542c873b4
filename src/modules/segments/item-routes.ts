import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { contact } from '../contacts/index.js';
import { tags } from './route-docs.js';
import { segment, segmentCount, segmentUpdate } from './schema.js';
import * as service from './service.js';

/** Routes on one segment, by id: read, change or delete it, and the contacts it matches now. */
export function registerSegmentItemRoutes(app: RouteApp) {
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
}
