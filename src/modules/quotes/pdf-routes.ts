import type { RouteApp } from '../../platform/http/route-app.js';
import { idParams } from '../../platform/http/schemas.js';
import { pdfResponse } from '../pdf-templates/index.js';
import { tags } from './route-docs.js';
import * as service from './service.js';

/** A quote rendered as a PDF. */
export function registerQuotePdfRoutes(app: RouteApp) {
  app.get(
    '/quotes/:id/pdf',
    {
      config: { scope: 'quotes:read' },
      schema: {
        tags,
        summary: "The quote as a PDF, rendered with the organization's default quote template",
        params: idParams,
        produces: ['application/pdf'],
        response: { 200: pdfResponse },
      },
    },
    async (req, reply) => {
      const { number, pdf } = await service.quotePdf(req.tenant, req.params.id);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="quote-${number}.pdf"`)
        .send(pdf);
    },
  );
}
