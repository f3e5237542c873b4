import { z } from 'zod';
import { unwrap } from '../api-client.js';
import { defined, listOutput, paging, pagingQuery, readTool, type Tool, writeTool } from '../tool-kit.js';
import { dateTime, docId, membershipRef } from './common.js';

const TYPES = ['reminder', 'follow-up', 'action', 'other'] as const;
const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
const RECURRENCES = ['none', 'daily', 'weekly', 'monthly'] as const;

const task = z.object({
  documentId: z.string().describe('documentId of the task'),
  name: z.string(),
  description: z.string().nullable().describe('HTML'),
  dueDate: z.string().nullable().describe('ISO 8601 date-time'),
  type: z.enum(TYPES),
  taskStatus: z.string(),
  completedAt: z.string().nullable(),
  card: z.object({ documentId: z.string(), title: z.string() }).nullable(),
  assignees: z.array(membershipRef),
  priority: z.enum(PRIORITIES),
  recurrence: z.enum(RECURRENCES),
  recurrenceInterval: z.number(),
  occurrenceNumber: z.number().describe('1 for a first task, n for the nth occurrence of a recurring series'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const statusText =
  "Task status: one of the taskStatuses of the card's board; for tasks without a card one of pending, in-progress, completed, cancelled";

const fields = {
  name: z.string().min(1).max(255).describe('Task name, at most 255 characters'),
  description: z.string().nullable().optional().describe('Description as HTML; null clears it'),
  dueDate: dateTime()
    .nullable()
    .optional()
    .describe(
      'Due date-time, ISO 8601 with offset (e.g. 2026-05-01T09:00:00Z); null clears it and its reminder',
    ),
  type: z.enum(TYPES).optional().describe('reminder (default), follow-up, action or other'),
  taskStatus: z.string().min(1).max(64).optional().describe(`${statusText}; default: the first of them`),
  card: z
    .string()
    .nullable()
    .optional()
    .describe('documentId of the card the task belongs to (see crm.search_cards); null unlinks'),
  assignees: z
    .array(z.string())
    .max(50)
    .optional()
    .describe('Membership documentIds of the assignees (not user ids); they get the due-date reminder'),
  priority: z.enum(PRIORITIES).optional().describe('low, medium (default), high or urgent'),
  recurrence: z
    .enum(RECURRENCES)
    .optional()
    .describe(
      "none (default), daily, weekly or monthly: completing the task creates the next occurrence, at the same local time in the organization's time zone; monthly keeps the day of month, clamped to the month's end (31 Jan → 28 Feb → 31 Mar)",
    ),
  recurrenceInterval: z
    .number()
    .int()
    .min(1)
    .max(365)
    .optional()
    .describe('Repeat every n days/weeks/months, 1..365 (default 1)'),
};

export const taskTools: Tool[] = [
  readTool({
    name: 'list_tasks',
    title: 'List tasks',
    description:
      "Lists tasks (to-dos with due dates, reminders and recurrence), paged and sorted by due date by default. Filter by status, type, priority, the card they belong to, an assignee, or a due-date window; use it to find a task's documentId before crm.update_task or crm.update_task_status.",
    input: {
      search: z.string().optional().describe('Text contained in the task name (case-insensitive)'),
      taskStatus: z.string().optional().describe('Only tasks in this status, e.g. pending'),
      type: z.enum(TYPES).optional().describe('Only tasks of this type'),
      priority: z.enum(PRIORITIES).optional().describe('Only tasks of this priority'),
      card: z.string().optional().describe('documentId of a card: only its tasks'),
      assignee: z.string().optional().describe('Membership documentId: only tasks assigned to it'),
      dueAfter: dateTime().optional().describe('Only tasks due at or after this ISO 8601 date-time'),
      dueBefore: dateTime().optional().describe('Only tasks due before this ISO 8601 date-time'),
      ...paging,
    },
    output: listOutput(task),
    run: async (args, { api, apiUrl }) => {
      const filters: Record<string, unknown> = {};
      if (args.search) filters.name = { $containsi: args.search };
      if (args.taskStatus) filters.taskStatus = { $eq: args.taskStatus };
      if (args.type) filters.type = { $eq: args.type };
      if (args.priority) filters.priority = { $eq: args.priority };
      if (args.card) filters.card = { documentId: { $eq: args.card } };
      if (args.assignee) filters.assignees = { documentId: { $eq: args.assignee } };
      if (args.dueAfter || args.dueBefore)
        filters.dueDate = defined({ $gte: args.dueAfter, $lt: args.dueBefore });
      const query = { ...pagingQuery({ ...args, sort: args.sort ?? 'dueDate:asc' }), filters };
      return unwrap(api.GET('/api/tasks', { params: { query } }), apiUrl);
    },
  }),
  writeTool({
    name: 'create_task',
    title: 'Create a task',
    description:
      'Creates a task, optionally linked to a card (card documentId) and assigned to members (membership documentIds). A task with a dueDate e-mails its assignees a reminder before it is due. For a recurring task set recurrence and recurrenceInterval.',
    input: fields,
    output: task,
    destructive: false,
    idempotent: false,
    summary: (a) => `create the task "${a.name}"${a.dueDate ? ` due ${a.dueDate}` : ''}`,
    run: (args, { api, apiUrl }) =>
      unwrap(api.POST('/api/tasks', { body: { data: defined(args) as typeof args } }), apiUrl),
  }),
  writeTool({
    name: 'update_task',
    title: 'Update a task',
    description:
      'Changes fields of a task given its documentId; only the fields passed change. Changing or clearing dueDate reschedules or cancels its reminder. To only change the status use crm.update_task_status.',
    input: { taskId: docId('task'), ...fields, name: fields.name.optional() },
    output: task,
    destructive: true,
    idempotent: true,
    summary: (a) => `update the task ${a.taskId}`,
    run: ({ taskId, ...data }, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/tasks/{id}', { params: { path: { id: taskId } }, body: { data: defined(data) } }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'update_task_status',
    title: 'Change the status of a task',
    description:
      'Sets the status of a task given its documentId, e.g. completed. Completing a recurring task that has a dueDate creates its next occurrence (once).',
    input: { taskId: docId('task'), taskStatus: z.string().min(1).max(64).describe(statusText) },
    output: task,
    destructive: true,
    idempotent: true,
    summary: (a) => `set the status of the task ${a.taskId} to "${a.taskStatus}"`,
    run: (args, { api, apiUrl }) =>
      unwrap(
        api.PUT('/api/tasks/{id}/status', {
          params: { path: { id: args.taskId } },
          body: { data: { taskStatus: args.taskStatus } },
        }),
        apiUrl,
      ),
  }),
];
