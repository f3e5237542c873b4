import { z } from 'zod';

export const categoryInput = z.strictObject({ name: z.string().trim().min(1).max(120) });
export type CategoryInput = z.infer<typeof categoryInput>;

export const category = z
  .object({ documentId: z.string(), name: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .meta({ id: 'ProductCategory' });
export type Category = z.infer<typeof category>;
