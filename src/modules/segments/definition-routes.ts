import type { RouteApp } from '../../platform/http/route-app.js';
import { contact } from '../contacts/index.js';
import { tags } from './route-docs.js';
import { filterOptions, previewInput, previewResult } from './schema.js';
import * as service from './service.js';

/** Help for writing a segment definition before saving it: the conditions it can use, what it would match. */
export function registerSegmentDefinitionRoutes(app: RouteApp) {
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
}
