import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { registerTemplatePreviewRoutes } from './preview-routes.js';
import { tags } from './route-docs.js';
import { pdfTemplate, templateInput, templateUpdate } from './schema.js';
import * as service from './service.js';

export const pdfTemplateRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/pdf-templates',
    {
      config: { scope: 'quotes:read' },
      schema: {
        tags,
        summary: 'List PDF templates',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(pdfTemplate) },
      },
    },
    async (req) => service.listTemplates(req.tenant, req.query),
  );

  app.get(
    '/pdf-templates/:id',
    {
      config: { scope: 'quotes:read' },
      schema: { tags, summary: 'One PDF template', params: idParams, response: { 200: pdfTemplate } },
    },
    async (req) => service.getTemplate(req.tenant, req.params.id),
  );

  app.post(
    '/pdf-templates',
    {
      config: { scope: 'quotes:write' },
      schema: {
        tags,
        summary: 'Create a PDF template (admin)',
        description:
          'A layout is page settings plus blocks (heading, text, fields, items, totals, divider, spacer) whose text holds `{{placeholders}}`; see docs/products-quotes.md.',
        body: dataBody(templateInput),
        response: { 201: pdfTemplate },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createTemplate(req.tenant, req.body.data)),
  );

  app.put(
    '/pdf-templates/:id',
    {
      config: { scope: 'quotes:write' },
      schema: {
        tags,
        summary: 'Update a PDF template (admin); partial',
        params: idParams,
        body: dataBody(templateUpdate),
        response: { 200: pdfTemplate },
      },
    },
    async (req) => service.updateTemplate(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/pdf-templates/:id',
    {
      config: { scope: 'quotes:write' },
      schema: {
        tags,
        summary: 'Delete a PDF template (admin); without a default, quotes use the built-in layout',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteTemplate(req.tenant, req.params.id),
  );

  registerTemplatePreviewRoutes(app);
};
