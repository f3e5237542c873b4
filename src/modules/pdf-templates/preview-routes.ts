import type { RouteApp } from '../../platform/http/route-app.js';
import { idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { pdfResponse, previewBody } from './schema.js';
import * as service from './service.js';

/** A template rendered as a PDF before it is used, with a real quote or sample data. */
export function registerTemplatePreviewRoutes(app: RouteApp) {
  app.post(
    '/pdf-templates/:id/preview',
    {
      config: { scope: 'quotes:read' },
      schema: {
        tags,
        summary: 'Render the template as a PDF, with one of your quotes or with sample data',
        params: idParams,
        body: previewBody,
        produces: ['application/pdf'],
        response: { 200: pdfResponse },
      },
    },
    async (req, reply) => {
      const pdf = await service.previewTemplate(req.tenant, req.params.id, req.body?.quote);
      return reply
        .type('application/pdf')
        .header('content-disposition', 'inline; filename="preview.pdf"')
        .send(pdf);
    },
  );
}
