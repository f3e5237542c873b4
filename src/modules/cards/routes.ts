import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { registerCardCollectionRoutes, registerCardItemRoutes } from './card-routes.js';
import { registerCommentRoutes } from './comment-routes.js';
import { registerFileRoutes } from './file-routes.js';
import { registerPublicFormRoutes } from './public-form-routes.js';
import { registerReportRoutes } from './report-routes.js';

/** The cards module's routes. The groups register in this order: it is the order of the OpenAPI document. */
export const cardRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  registerCardCollectionRoutes(app);
  registerCardItemRoutes(app, deps);
  registerCommentRoutes(app, deps);
  registerReportRoutes(app);
  registerPublicFormRoutes(app, deps);
  await registerFileRoutes(app, deps);
};
