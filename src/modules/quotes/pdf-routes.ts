import { z } from 'zod';
import type { RouteApp } from '../../platform/http/route-app.js';
import { idParams } from '../../platform/http/schemas.js';
import { pdfResponse } from '../pdf-templates/index.js';
import { tags } from './route-docs.js';
import * as service from './service.js';

const quotePdfQuery = z.strictObject({
  template: idParams.shape.id
    .optional()
    .describe("a PDF template's documentId (GET /pdf-templates); the default quote template when absent"),
});

/** A quote rendered as a PDF. */
export function registerQuotePdfRoutes(app: RouteApp) {
  app.get(
    '/quotes/:id/pdf',
    {
      config: { scope: 'quotes:read' },
      schema: {
        tags,
        summary:
          "The quote as a PDF, rendered with the organization's default quote template or a chosen one",
        description:
          'Renders the quote with `template` (a PDF template of the organization, by documentId) when given, else with the default quote template, else with the built-in layout. An unknown template is a 404 naming `template`.',
        params: idParams,
        querystring: quotePdfQuery,
        produces: ['application/pdf'],
        response: { 200: pdfResponse },
      },
    },
    async (req, reply) => {
      const { number, pdf } = await service.quotePdf(req.tenant, req.params.id, req.query.template);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="quote-${number}.pdf"`)
        .send(pdf);
    },
  );
}
