import { z } from 'zod';

/** Path parameter holding a documentId. */
export const idParams = z.object({ id: z.string().min(1).max(64).describe('documentId') });

/**
 * Strapi write body: `{ data: { … } }` (DESIGN.md §5). `examples` (the inner objects) become the request body
 * examples of the OpenAPI document: what the docs page's try-it-out pre-fills, checked against the schema by
 * the Redocly lint in test/platform/openapi-tools.test.ts.
 */
export const dataBody = <T extends z.ZodTypeAny>(inner: T, examples?: z.input<T>[]) => {
  const body = z.strictObject({ data: inner });
  return examples?.length ? body.meta({ examples: examples.map((data) => ({ data })) }) : body;
};

export const iso = (d: Date | string | null | undefined): string | null =>
  d == null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString();

export const isoRequired = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();

export const userRef = z
  .object({
    username: z.string(),
    email: z.string(),
    blocked: z.boolean(),
    name: z
      .string()
      .nullable()
      .describe('the display name the person chose; null: not set (show the username)'),
  })
  .meta({ id: 'UserRef' });
export const membershipRef = z
  .object({ documentId: z.string(), user: userRef })
  .meta({ id: 'MembershipRef' });
export type MembershipRef = z.infer<typeof membershipRef>;

export const deleted = z.object({ documentId: z.string(), deleted: z.literal(true) });
