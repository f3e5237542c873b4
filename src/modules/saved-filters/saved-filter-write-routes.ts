import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { savedFilter, savedFilterCreateInput, savedFilterUpdateInput } from './schema.js';
import * as service from './service.js';

/** Changes to saved filters: save one, change it, delete it. */
export function registerSavedFilterWriteRoutes(app: RouteApp) {
  app.post(
    '/saved-filters',
    {
      config: { scope: 'saved_filters:write' },
      schema: {
        tags,
        summary: 'Save a list query under a name',
        description:
          'BETA: The query is compiled as its list would compile it (400 for an unknown field or operator); cards ' +
          'filters name their board. Private filters: any member; organization-wide: admins. Use it as ' +
          '`?savedFilter=<documentId>` on the list.',
        body: dataBody(savedFilterCreateInput, [
          {
            name: 'Propostas acima de 10 mil',
            resource: 'cards',
            board: 'q8sf3qb2ch3wqzje8lu0xuxu',
            query: {
              filters: { currentPhase: { slug: { $eq: 'proposta' } }, value: { $gte: 10000 } },
              sort: 'value:desc',
            },
            visibility: 'organization',
          },
        ]),
        response: { 201: savedFilter },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createSavedFilter(req.tenant, req.body.data)),
  );

  app.put(
    '/saved-filters/:id',
    {
      config: { scope: 'saved_filters:write' },
      schema: {
        tags,
        summary: 'Rename a saved filter, change its query or visibility',
        description: 'BETA: A private filter by its author; an organization-wide one by admins.',
        params: idParams,
        body: dataBody(savedFilterUpdateInput, [
          { name: 'Leads de São Paulo', query: { filters: { city: { $eq: 'São Paulo' } } } },
        ]),
        response: { 200: savedFilter },
      },
    },
    async (req) => service.updateSavedFilter(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/saved-filters/:id',
    {
      config: { scope: 'saved_filters:write' },
      schema: {
        tags,
        summary: 'Delete a saved filter',
        description: 'BETA: A private filter by its author; an organization-wide one by admins.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteSavedFilter(req.tenant, req.params.id),
  );
}
