import { paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { activityListQuery, callInput, contactActivity, noteInput } from './schema.js';
import * as service from './service.js';

/** The contact timeline: read it, add a note, log a call. */
export function registerContactTimelineRoutes(app: RouteApp) {
  app.get(
    '/contacts/:id/activities',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        summary: 'The contact timeline, newest first',
        params: idParams,
        querystring: activityListQuery,
        response: { 200: paginatedSchema(contactActivity) },
      },
    },
    async (req) => service.listActivities(req.tenant, req.params.id, req.query),
  );

  app.post(
    '/contacts/:id/notes',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Add a note to the timeline (note_added)',
        params: idParams,
        body: dataBody(noteInput),
        response: { 201: contactActivity },
      },
    },
    async (req, reply) =>
      reply.code(201).send(
        await service.addActivity(req.tenant, req.params.id, {
          ...req.body.data,
          activityType: 'note_added',
        }),
      ),
  );

  app.post(
    '/contacts/:id/activities',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Log a call (call_completed or call_attempted)',
        params: idParams,
        body: dataBody(callInput),
        response: { 201: contactActivity },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.addActivity(req.tenant, req.params.id, req.body.data)),
  );
}
