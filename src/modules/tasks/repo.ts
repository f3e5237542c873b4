import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { membershipModel } from '../../platform/tenancy/memberships.js';
import { boards } from '../boards/table.js';
import { cards } from '../cards/table.js';
import { TASK_PRIORITIES, TASK_RECURRENCES, TASK_TYPES, taskAssignees, tasks } from './table.js';

export type TaskRow = typeof tasks.$inferSelect;
export type TaskValues = Omit<typeof tasks.$inferInsert, 'organizationId' | 'id' | 'documentId'>;

const cardRefModel: QueryModel = {
  table: 'cards',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    title: { column: 'title', type: 'string' },
  },
};

export const taskModel: QueryModel = {
  table: 'tasks',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string', sortable: true },
    description: { column: 'description', type: 'string' },
    dueDate: { column: 'due_date', type: 'datetime', sortable: true },
    type: { column: 'type', type: 'string', sortable: true, values: TASK_TYPES },
    taskStatus: { column: 'task_status', type: 'string', sortable: true },
    completedAt: { column: 'completed_at', type: 'datetime', sortable: true },
    priority: { column: 'priority', type: 'string', sortable: true, values: TASK_PRIORITIES },
    recurrence: { column: 'recurrence', type: 'string', values: TASK_RECURRENCES },
    createdAt: { column: 'created_at', type: 'datetime', sortable: true },
    updatedAt: { column: 'updated_at', type: 'datetime', sortable: true },
  },
  relations: {
    card: {
      model: () => cardRefModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."card_id"`),
      foreignKey: 'card_id',
    },
    assignees: {
      model: () => membershipModel,
      on: (outer, inner) =>
        sql.raw(
          `exists (select 1 from "task_assignees" ta where ta.organization_id = "${outer}"."organization_id" and ta.task_id = "${outer}"."id" and ta.membership_id = "${inner}"."id")`,
        ),
    },
  },
  populate: ['card', 'assignees'],
};

export async function insertTask(tx: Tx, orgId: number, values: TaskValues) {
  const [row] = await tx
    .insert(tasks)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning();
  return row;
}

/** The next occurrence of a series, or undefined when another transaction created it first. */
export async function insertOccurrence(tx: Tx, orgId: number, values: TaskValues) {
  const [row] = await tx
    .insert(tasks)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .onConflictDoNothing({ target: [tasks.organizationId, tasks.recurrenceParentId, tasks.occurrenceNumber] })
    .returning();
  return row as TaskRow | undefined;
}

/** Tasks without a card, and tasks whose card (joined to its board) matches `cardVisible`. */
export function visibleTo(cardVisible: SQL): SQL {
  return sql`(${tasks.cardId} is null or exists (select 1 from ${cards}
    join ${boards} on ${boards.organizationId} = ${cards.organizationId} and ${boards.id} = ${cards.boardId}
    where ${cards.organizationId} = ${tasks.organizationId} and ${cards.id} = ${tasks.cardId} and ${cardVisible}))`;
}

export async function findTask(
  tx: Tx,
  orgId: number,
  documentId: string,
  opts: { lock?: boolean; visibility?: SQL } = {},
) {
  const q = tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.organizationId, orgId), eq(tasks.documentId, documentId), opts.visibility));
  const [row] = opts.lock ? await q.for('update') : await q;
  return row as TaskRow | undefined;
}

export async function findTaskById(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.organizationId, orgId), eq(tasks.id, id)));
  return row as TaskRow | undefined;
}

export async function updateTask(tx: Tx, orgId: number, id: number, values: Partial<TaskValues>) {
  const [row] = await tx
    .update(tasks)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(tasks.organizationId, orgId), eq(tasks.id, id)))
    .returning();
  return row;
}

export async function deleteTask(tx: Tx, orgId: number, id: number) {
  await tx.delete(tasks).where(and(eq(tasks.organizationId, orgId), eq(tasks.id, id)));
}

export async function listTasks(tx: Tx, orgId: number, q: CompiledList, visibility: SQL | undefined) {
  const where = and(eq(tasks.organizationId, orgId), q.where, visibility);
  const rows = await tx
    .select()
    .from(tasks)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(tasks).where(where));
  return { rows, total };
}

export async function setAssignees(tx: Tx, orgId: number, taskId: number, membershipIds: number[]) {
  await tx
    .delete(taskAssignees)
    .where(and(eq(taskAssignees.organizationId, orgId), eq(taskAssignees.taskId, taskId)));
  if (membershipIds.length > 0)
    await tx
      .insert(taskAssignees)
      .values(membershipIds.map((membershipId) => ({ organizationId: orgId, taskId, membershipId })));
}

export async function assigneeIds(tx: Tx, orgId: number, taskIds: number[]) {
  const byTask = new Map<number, number[]>();
  if (taskIds.length === 0) return byTask;
  const rows = await tx
    .select()
    .from(taskAssignees)
    .where(and(eq(taskAssignees.organizationId, orgId), inArray(taskAssignees.taskId, taskIds)))
    .orderBy(taskAssignees.membershipId);
  for (const r of rows) byTask.set(r.taskId, [...(byTask.get(r.taskId) ?? []), r.membershipId]);
  return byTask;
}

export async function cardRefs(tx: Tx, orgId: number, cardIds: number[]) {
  if (cardIds.length === 0) return new Map<number, { documentId: string; title: string }>();
  const rows = await tx
    .select({ id: cards.id, documentId: cards.documentId, title: cards.title })
    .from(cards)
    .where(and(eq(cards.organizationId, orgId), inArray(cards.id, cardIds)));
  return new Map(rows.map((r) => [r.id, { documentId: r.documentId, title: r.title }]));
}

/** A card with its board's documentId and task statuses; `visibility` narrows it (cards joined to boards). */
export async function findCardWithBoard(
  tx: Tx,
  orgId: number,
  where: { documentId: string } | { id: number },
  visibility?: SQL,
) {
  const [row] = await tx
    .select({
      id: cards.id,
      documentId: cards.documentId,
      title: cards.title,
      boardDocumentId: boards.documentId,
      taskStatuses: boards.taskStatuses,
    })
    .from(cards)
    .innerJoin(boards, and(eq(boards.organizationId, cards.organizationId), eq(boards.id, cards.boardId)))
    .where(
      and(
        eq(cards.organizationId, orgId),
        'id' in where ? eq(cards.id, where.id) : eq(cards.documentId, where.documentId),
        visibility,
      ),
    );
  return row;
}
