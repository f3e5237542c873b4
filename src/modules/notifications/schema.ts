import { z } from 'zod';
import { paginationSchema } from '../../platform/http/list-query.js';

export const notification = z
  .object({
    documentId: z.string(),
    type: z.string().describe('`task_reminder`'),
    title: z.string(),
    body: z.string(),
    subject: z.object({ kind: z.string(), documentId: z.string() }).describe('what it is about'),
    read: z.boolean(),
    readAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Notification' });

export const notificationQuery = z.strictObject({
  pagination: paginationSchema.optional(),
  unread: z.enum(['true', 'false']).optional().describe('only unread ones'),
});
