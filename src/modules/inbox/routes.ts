import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { lazyChannelKit } from '../channels/index.js';
import { registerCardRoutes } from './card-routes.js';
import {
  registerConversationListRoutes,
  registerConversationRoutes,
  registerReadStateRoutes,
} from './conversation-routes.js';
import { registerCrmRoutes } from './crm-routes.js';
import { registerEventRoutes } from './event-routes.js';
import { registerInboxRoutes } from './inbox-routes.js';
import { registerMessageRoutes } from './message-routes.js';

/** The chat inbox (BETA): its routes by group, registered in this order and in this plugin's context. */
export const inboxRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyChannelKit(deps.config, deps.db);
  registerInboxRoutes(app);
  registerConversationListRoutes(app);
  registerEventRoutes(app, deps);
  registerConversationRoutes(app, kit);
  registerReadStateRoutes(app);
  registerMessageRoutes(app, kit);
  registerCardRoutes(app);
  registerCrmRoutes(app);
};
