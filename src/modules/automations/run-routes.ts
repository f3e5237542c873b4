import { paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { idParams } from '../../platform/http/schemas.js';
import { admins, tags } from './route-docs.js';
import { run, runListQuery } from './schema.js';
import * as service from './service.js';

/** The run log of an automation. */
export function registerRunRoutes(app: RouteApp) {
  app.get(
    '/automations/:id/runs',
    {
      config: { scope: 'automations:read' },
      schema: {
        tags,
        summary: "The runs of an automation, newest first, with each action's result",
        description: `${admins} One run per triggering event; \`results\` holds { type, ok, message, output } per action.`,
        params: idParams,
        querystring: runListQuery,
        response: { 200: paginatedSchema(run) },
      },
    },
    async (req) => service.listRuns(req.tenant, req.params.id, req.query),
  );
}
