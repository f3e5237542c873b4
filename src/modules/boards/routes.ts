import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { registerBoardCollectionRoutes, registerBoardItemRoutes } from './board-routes.js';
import { registerPublicFormRoutes } from './public-form-routes.js';
import { registerStructureRoutes } from './structure-routes.js';
import { registerTemplateRoutes } from './template-routes.js';

/** The boards module's routes. The groups register in this order: it is the order of the OpenAPI document. */
export const boardRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  registerBoardCollectionRoutes(app);
  registerBoardItemRoutes(app, deps);
  registerTemplateRoutes(app);
  registerPublicFormRoutes(app, deps);
  registerStructureRoutes(app);
};
