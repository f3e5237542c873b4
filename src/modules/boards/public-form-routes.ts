import type { AppDeps } from '../../platform/deps.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { tags } from './route-docs.js';
import { boardIdParams, publicForm } from './schema.js';
import * as service from './service.js';

/** The public entry form of a board. */
export function registerPublicFormRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/boards/:boardId/public-form',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'public') },
      schema: {
        tags,
        summary: 'The entry form of an active board (public: no token, no tenant header)',
        params: boardIdParams,
        response: { 200: publicForm },
      },
    },
    async (req) => service.getPublicForm(deps.db, req.params.boardId),
  );
}
