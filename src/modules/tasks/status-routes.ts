import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { task, taskStatusInput } from './schema.js';
import * as service from './service.js';

/** A task's status change, which also moves a recurring task on to its next occurrence. */
export function registerTaskStatusRoutes(app: RouteApp, deps: AppDeps) {
  app.put(
    '/tasks/:id/status',
    {
      config: { scope: 'tasks:write' },
      schema: {
        tags,
        summary: 'Change the status; completing a recurring task with a dueDate creates the next occurrence',
        params: idParams,
        body: dataBody(taskStatusInput, [{ taskStatus: 'completed' }]),
        response: { 200: task },
      },
    },
    async (req) => service.setTaskStatus(deps, req.tenant, req.params.id, req.body.data.taskStatus),
  );
}
