import { wordsOf } from '../../lib/area-words';
import { w } from '../../lib/words';
import * as catalogue from '../../words/tasks';

/** The tasks area's words (web/src/words/tasks.ts). */
export const kw = wordsOf(catalogue);
export type TaskKey = keyof typeof catalogue.ptBR;

export const STATUSES = ['pending', 'in-progress', 'completed', 'cancelled'] as const;
export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export const TYPES = ['reminder', 'follow-up', 'action', 'other'] as const;
export const RECURRENCES = ['none', 'daily', 'weekly', 'monthly'] as const;
const CLOSED = new Set(['completed', 'cancelled']);

export interface Task {
  documentId: string;
  name: string;
  description: string | null;
  dueDate: string | null;
  type: (typeof TYPES)[number];
  taskStatus: string;
  completedAt: string | null;
  card: { documentId: string; title: string } | null;
  assignees: { documentId: string; user: { username: string; name?: string | null } }[];
  priority: (typeof PRIORITIES)[number];
  recurrence: (typeof RECURRENCES)[number];
  recurrenceInterval: number;
  occurrenceNumber: number;
  createdAt: string;
  updatedAt: string;
}

/** A code of this area as its word; a status a board named itself stays as the board wrote it. */
export function codeWord(prefix: 'st' | 'pr' | 'ty' | 'rec', value: string): string {
  const key = `${prefix}_${value}` as TaskKey;
  return key in catalogue.ptBR ? kw(key) : value;
}

/** Past its due date and still open. */
export const isLate = (t: Pick<Task, 'dueDate' | 'taskStatus'>, now = Date.now()) =>
  !!t.dueDate && Date.parse(t.dueDate) < now && !CLOSED.has(t.taskStatus);

/** A task's recurrence in words ("Semanal, a cada 2"); '' when it does not repeat. */
export function recurrenceWord(t: Pick<Task, 'recurrence' | 'recurrenceInterval'>): string {
  if (t.recurrence === 'none') return '';
  const rule = codeWord('rec', t.recurrence);
  return t.recurrenceInterval > 1 ? `${rule}, ${kw('repeatsEvery', { n: t.recurrenceInterval })}` : rule;
}

/** `YYYY-MM-DDTHH:MM` in local time of an ISO instant ('' for none). */
export const toLocal = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
/** An ISO instant of a local `YYYY-MM-DDTHH:MM` (null for ''). */
export const fromLocal = (local: string) => (local ? new Date(local).toISOString() : null);

/** The API's "at least 1 character" on a required text said as "obrigatório" (it was left empty). */
export const emptyIsRequired = (message: string) =>
  /(>=\s*1 character|at least 1 character)/i.test(message) ? w('fe_required') : null;
