import type { RouteApp } from '../../platform/http/route-app.js';
import { tags } from './route-docs.js';
import { bulkDeleteInput, bulkResult, bulkUpdateInput, mergeInput, mergeResult } from './schema.js';
import * as service from './service.js';

/** Routes that act on many contacts at once: bulk delete, bulk update, merge. */
export function registerContactBulkRoutes(app: RouteApp) {
  app.post(
    '/contacts/bulk-delete',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Delete many contacts by ids or by filters (admin)',
        body: bulkDeleteInput,
        response: { 200: bulkResult },
      },
    },
    async (req) => service.bulkDelete(req.tenant, req.body),
  );

  app.post(
    '/contacts/bulk-update',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Set owner, team, type, location or custom fields on many contacts',
        body: bulkUpdateInput,
        response: { 200: bulkResult },
      },
    },
    async (req) => service.bulkUpdate(req.tenant, req.body, req.body.data),
  );

  app.post(
    '/contacts/merge',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Merge contacts into a survivor (timeline, cards and conversations move to it)',
        body: mergeInput,
        response: { 200: mergeResult },
      },
    },
    async (req) => service.mergeContacts(req.tenant, req.body.survivor, req.body.merged),
  );
}
