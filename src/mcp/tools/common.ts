import { z } from 'zod';

/** A documentId argument (never a numeric id). */
export const docId = (what: string) =>
  z.string().min(1).max(64).describe(`documentId of the ${what} (not a numeric id)`);

export const deletedOutput = z.object({
  documentId: z.string().describe('documentId of the deleted record'),
  deleted: z.literal(true),
});

export const membershipRef = z.object({
  documentId: z.string().describe('membership documentId (what assignee fields take)'),
  user: z.object({ username: z.string(), email: z.string(), blocked: z.boolean() }),
});
