import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { registerAgendaEventRoutes } from './agenda-event-routes.js';
import { registerConnectionRoutes } from './connection-routes.js';
import { registerCardMeetingRoutes, registerMeetingRoutes } from './meeting-routes.js';

/** The agenda module's routes. The groups register in this order: it is the order of the OpenAPI document. */
export const agendaRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  registerConnectionRoutes(app, deps);
  registerAgendaEventRoutes(app, deps);
  registerCardMeetingRoutes(app, deps);
  registerMeetingRoutes(app, deps);
};
