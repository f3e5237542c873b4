import { z } from 'zod';
import { paginationSchema } from '../../platform/http/list-query.js';
import { membershipRef } from '../../platform/http/schemas.js';

export const notificationSubject = z
  .object({
    kind: z.string().describe('`task` or `card`'),
    documentId: z.string(),
    label: z
      .string()
      .optional()
      .describe("the subject's name when the notification was made (task name, card title)"),
    boardDocumentId: z.string().optional().describe("a card's board"),
    commentDocumentId: z.string().optional().describe('the comment that mentions the member'),
  })
  .describe('what it is about');

export const notification = z
  .object({
    documentId: z.string(),
    type: z
      .string()
      .describe(
        '`task_reminder` (a task assigned to the member is due soon) or `comment_mention` (a comment on a card the member sees mentions them)',
      ),
    title: z.string(),
    body: z.string().describe('for a mention, the comment as plain text (up to 300 characters)'),
    subject: notificationSubject,
    actor: membershipRef.nullable().describe('who caused it (the comment’s author); null for reminders'),
    read: z.boolean(),
    readAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Notification' });

export const notificationQuery = z.strictObject({
  pagination: paginationSchema.optional(),
  unread: z.enum(['true', 'false']).optional().describe('only unread ones'),
});

export const notificationsRead = z.object({
  read: z.number().int().describe('how many unread notifications were marked read'),
});
