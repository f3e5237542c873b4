import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { listAgenda } from './agenda.js';
import { beta, read, tags } from './route-docs.js';
import { agendaQuery, agendaResponse } from './schema.js';

/** The merged agenda of the caller. */
export function registerAgendaEventRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/agenda/events',
    {
      config: read,
      schema: {
        tags,
        summary: 'Your agenda: calendar events, scheduled campaigns, tasks and card due dates, merged',
        description: beta(
          'Window `start`–`end` at most 62 days, end after start (400 otherwise). Calendar events come from your connected calendar (time-range REPORT, recurring events expanded in the window); tasks and cards are those you may see. A calendar event that is a meeting of the organization links to it (`link.type: meeting`), with its `organizer` and `status` when the card of the meeting is visible to you (as `GET /calendar-meetings/{id}`). When a source fails the others still answer: `meta.partial` is true and `meta.sourceErrors` says which and why — examine it before treating the list as complete.',
        ),
        querystring: agendaQuery,
        response: { 200: agendaResponse },
      },
    },
    async (req) => listAgenda(deps, req.tenant, req.query),
  );
}
