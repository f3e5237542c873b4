import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { registerSavedFilterWriteRoutes } from './saved-filter-write-routes.js';
import { savedFilter, savedFilterListQuery } from './schema.js';
import * as service from './service.js';

export const savedFilterRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/saved-filters',
    {
      config: { scope: 'saved_filters:read' },
      schema: {
        tags,
        summary: 'List the saved filters you can use',
        description:
          'BETA: Organization-wide filters and your own private ones; `resource` narrows to one list.',
        querystring: savedFilterListQuery,
        response: { 200: paginatedSchema(savedFilter) },
      },
    },
    async (req) => service.listSavedFilters(req.tenant, req.query),
  );

  app.get(
    '/saved-filters/:id',
    {
      config: { scope: 'saved_filters:read' },
      schema: {
        tags,
        summary: 'One saved filter',
        description: 'BETA: an organization-wide filter or one of your own.',
        params: idParams,
        response: { 200: savedFilter },
      },
    },
    async (req) => service.getSavedFilter(req.tenant, req.params.id),
  );

  registerSavedFilterWriteRoutes(app);
};
