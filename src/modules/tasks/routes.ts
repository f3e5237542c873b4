import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { task, taskInput, taskListQuery, taskUpdate } from './schema.js';
import * as service from './service.js';
import { registerTaskStatusRoutes } from './status-routes.js';

export const taskRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/tasks',
    {
      config: { scope: 'tasks:read' },
      schema: {
        tags,
        summary: 'List tasks (filters on taskStatus, type, priority, dueDate, card, assignees, …)',
        querystring: taskListQuery,
        response: { 200: paginatedSchema(task) },
      },
    },
    async (req) => service.listTasks(req.tenant, req.query),
  );

  app.get(
    '/tasks/:id',
    {
      config: { scope: 'tasks:read' },
      schema: { tags, summary: 'One task', params: idParams, response: { 200: task } },
    },
    async (req) => service.getTask(req.tenant, req.params.id),
  );

  app.post(
    '/tasks',
    {
      config: { scope: 'tasks:write' },
      schema: {
        tags,
        summary: 'Create a task',
        body: dataBody(taskInput, [
          {
            name: 'Call Maria about the proposal',
            dueDate: '2026-12-01T14:00:00.000Z',
            type: 'follow-up',
            priority: 'high',
          },
        ]),
        response: { 201: task },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createTask(deps, req.tenant, req.body.data)),
  );

  app.put(
    '/tasks/:id',
    {
      config: { scope: 'tasks:write' },
      schema: {
        tags,
        summary: 'Update a task (a changed dueDate reschedules its reminder)',
        params: idParams,
        body: dataBody(taskUpdate, [{ priority: 'urgent', dueDate: '2026-11-30T09:00:00.000Z' }]),
        response: { 200: task },
      },
    },
    async (req) => service.updateTask(deps, req.tenant, req.params.id, req.body.data),
  );

  registerTaskStatusRoutes(app, deps);

  app.delete(
    '/tasks/:id',
    {
      config: { scope: 'tasks:write' },
      schema: { tags, summary: 'Delete a task', params: idParams, response: { 200: deleted } },
    },
    async (req) => service.deleteTask(deps, req.tenant, req.params.id),
  );
};
