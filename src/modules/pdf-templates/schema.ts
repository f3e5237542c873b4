import { z } from 'zod';
import { pdfLayout } from './layout.js';
import { PDF_TEMPLATE_KINDS } from './table.js';

// No defaults in the shared fields: a `.partial()` update must not reset what it was not given (zod applies a
// default inside an optional), so a PUT of the name alone keeps the template the default.
const templateFields = {
  name: z.string().trim().min(1).max(120).describe('unique per organization'),
  kind: z.enum(PDF_TEMPLATE_KINDS).describe('what the template renders'),
  isDefault: z
    .boolean()
    .describe('the template quotes of this kind render with; setting it clears the previous default'),
  layout: pdfLayout,
};

export const templateInput = z.strictObject({
  ...templateFields,
  kind: templateFields.kind.default('quote'),
  isDefault: templateFields.isDefault.default(false),
});
export type TemplateInput = z.infer<typeof templateInput>;

export const templateUpdate = z.strictObject(templateFields).partial();
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
