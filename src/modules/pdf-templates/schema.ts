import { z } from 'zod';
import { pdfLayout } from './layout.js';
import { PDF_TEMPLATE_KINDS } from './table.js';

export const templateInput = z.strictObject({
  name: z.string().trim().min(1).max(120).describe('unique per organization'),
  kind: z.enum(PDF_TEMPLATE_KINDS).default('quote').describe('what the template renders'),
  isDefault: z
    .boolean()
    .default(false)
    .describe('the template quotes of this kind render with; setting it clears the previous default'),
  layout: pdfLayout,
});
export type TemplateInput = z.infer<typeof templateInput>;

export const templateUpdate = templateInput.partial();
export type TemplateUpdate = z.infer<typeof templateUpdate>;

export const pdfTemplate = z
  .object({
    documentId: z.string(),
    name: z.string(),
    kind: z.enum(PDF_TEMPLATE_KINDS),
    isDefault: z.boolean(),
    layout: pdfLayout,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'PdfTemplate' });
export type PdfTemplate = z.infer<typeof pdfTemplate>;

export const previewBody = z
  .strictObject({
    quote: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('documentId of a quote to render; without it the template renders sample data'),
  })
  .nullish()
  .describe('optional: an absent body renders sample data');

/** A binary answer: the body is the PDF itself. */
export const pdfResponse = z.any().describe('The PDF document (application/pdf)');
