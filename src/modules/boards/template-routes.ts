import { z } from 'zod';
import { paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { pageQuery, tags } from './route-docs.js';
import { boardTemplate, TEMPLATE_LOCALES } from './schema.js';
import * as service from './service.js';

/** The board template catalogue. */
export function registerTemplateRoutes(app: RouteApp) {
  app.get(
    '/board-templates',
    {
      config: { scope: 'boards:read' },
      schema: {
        tags,
        summary: 'The board template catalogue',
        description:
          'English templates (`sales-funnel`, …) and their pt-BR versions (`funil-de-vendas`, …) have their own ids; `locale` lists one language.',
        querystring: pageQuery.extend({
          locale: z.enum(TEMPLATE_LOCALES).optional().describe('only the templates in this language'),
        }),
        response: { 200: paginatedSchema(boardTemplate) },
      },
    },
    async (req) => service.listTemplates(req.query),
  );

  app.get(
    '/board-templates/:id',
    {
      config: { scope: 'boards:read' },
      schema: {
        tags,
        summary: 'One board template',
        params: z.object({ id: z.string().min(1).max(64).describe('template id, e.g. sales-funnel') }),
        response: { 200: boardTemplate },
      },
    },
    async (req) => service.getTemplate(req.params.id),
  );
}
