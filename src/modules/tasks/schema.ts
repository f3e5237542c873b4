import { z } from 'zod';
import { listQueryShape } from '../../platform/http/list-query.js';
import { richText } from '../../platform/http/rich-text.js';
import { membershipRef } from '../../platform/http/schemas.js';
import { savedFilterParam } from '../saved-filters/index.js';
import { TASK_PRIORITIES, TASK_RECURRENCES, TASK_TYPES } from './table.js';

const documentId = z.string().trim().min(1).max(64);
const dueDate = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
  .nullable()
  .describe('ISO 8601 date-time; null clears it');

const taskFields = {
  name: z.string().trim().min(1).max(255),
  description: richText(100_000).nullable().describe('rich text (HTML), sanitised on write'),
  dueDate,
  type: z.enum(TASK_TYPES),
  taskStatus: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .describe(
      "one of the card's board `taskStatuses` (without a card: pending, in-progress, completed, cancelled)",
    ),
  card: documentId.nullable().describe('documentId of the card the task belongs to; null unlinks'),
  assignees: z.array(documentId).max(50).describe('membership documentIds'),
  priority: z.enum(TASK_PRIORITIES),
  recurrence: z
    .enum(TASK_RECURRENCES)
    .describe(
      "next occurrences keep the local time in the organization's timeZone; monthly keeps the day of month, clamped to the month's last day (31 Jan → 28 Feb → 31 Mar)",
    ),
  recurrenceInterval: z.number().int().min(1).max(365),
};

export const taskInput = z.strictObject({
  ...taskFields,
  description: taskFields.description.optional(),
  dueDate: dueDate.optional(),
  type: taskFields.type.default('reminder'),
  taskStatus: taskFields.taskStatus.optional().describe('default: the first of the applicable statuses'),
  card: taskFields.card.optional(),
  assignees: taskFields.assignees.default([]),
  priority: taskFields.priority.default('medium'),
  recurrence: taskFields.recurrence.default('none'),
  recurrenceInterval: taskFields.recurrenceInterval.default(1),
});
export type TaskInput = z.infer<typeof taskInput>;

export const taskUpdate = z.strictObject(
  Object.fromEntries(Object.entries(taskFields).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof typeof taskFields]: z.ZodOptional<(typeof taskFields)[K]>;
  },
);
export type TaskUpdate = z.infer<typeof taskUpdate>;

export const taskStatusInput = z.strictObject({ taskStatus: taskFields.taskStatus });

export const task = z
  .object({
    documentId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    dueDate: z.string().nullable(),
    type: z.enum(TASK_TYPES),
    taskStatus: z.string(),
    completedAt: z.string().nullable(),
    card: z.object({ documentId: z.string(), title: z.string() }).nullable(),
    assignees: z.array(membershipRef),
    priority: z.enum(TASK_PRIORITIES),
    recurrence: z.enum(TASK_RECURRENCES),
    recurrenceInterval: z.number().int(),
    occurrenceNumber: z.number().int().describe('1 for a first task, n for the nth occurrence of a series'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Task' });
export type Task = z.infer<typeof task>;

export const taskListQuery = z.strictObject({ ...listQueryShape, savedFilter: savedFilterParam });
