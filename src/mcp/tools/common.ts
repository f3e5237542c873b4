import { z } from 'zod';

/** A date-time argument: ISO 8601 with an offset (`format: date-time`), checked before anything is asked. */
export const dateTime = () => z.iso.datetime({ offset: true });

/** A calendar date argument, YYYY-MM-DD (`format: date`). */
export const dateOnly = () => z.iso.date();

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
