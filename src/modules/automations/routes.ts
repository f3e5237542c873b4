import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { deleted, idParams } from '../../platform/http/schemas.js';
import { registerAutomationDefinitionRoutes } from './definition-routes.js';
import { admins, tags } from './route-docs.js';
import { registerRunRoutes } from './run-routes.js';
import { automation, automationListQuery } from './schema.js';
import * as service from './service.js';

export const automationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/automations',
    {
      config: { scope: 'automations:read' },
      schema: {
        tags,
        summary: 'List automations',
        description: admins,
        querystring: automationListQuery,
        response: { 200: paginatedSchema(automation) },
      },
    },
    async (req) => service.listAutomations(req.tenant, req.query),
  );

  app.get(
    '/automations/:id',
    {
      config: { scope: 'automations:read' },
      schema: {
        tags,
        summary: 'One automation',
        description: admins,
        params: idParams,
        response: { 200: automation },
      },
    },
    async (req) => service.getAutomation(req.tenant, req.params.id),
  );

  registerAutomationDefinitionRoutes(app, deps);

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const)
    app.post(
      `/automations/:id/${verb}`,
      {
        config: { scope: 'automations:write' },
        schema: {
          tags,
          summary: enabled ? 'Enable an automation' : 'Disable an automation (its pending runs are skipped)',
          description: admins,
          params: idParams,
          response: { 200: automation },
        },
      },
      async (req) => service.setEnabled(req.tenant, req.params.id, enabled),
    );

  app.delete(
    '/automations/:id',
    {
      config: { scope: 'automations:write' },
      schema: {
        tags,
        summary: 'Delete an automation and its runs',
        description: admins,
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteAutomation(req.tenant, req.params.id),
  );

  registerRunRoutes(app);
};
