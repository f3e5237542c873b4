import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import type { AppDeps } from '../../platform/deps.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { notFound, validationError } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipIdsByDocumentIds, membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { loadBoardForWrite } from '../boards/index.js';
import { DEFAULT_TASK_STATUSES } from '../boards/table.js';
import { requireCardEdit, visibleCardsAcrossBoards } from '../cards/index.js';
import { organizationTimeZone } from '../organizations/index.js';
import { DEFAULT_TIME_ZONE } from '../organizations/table.js';
import { withSavedFilter } from '../saved-filters/index.js';
import { reminderQueue } from './jobs.js';
import { occurrenceDue, type Recurrence } from './recurrence.js';
import * as repo from './repo.js';
import type { Task, TaskInput, TaskUpdate } from './schema.js';

type Deps = Pick<AppDeps, 'config' | 'jobs'>;

/** The status that means done: completing into it stamps completedAt and rolls a recurring series on. */
export const COMPLETED = 'completed';
/** Statuses that need no reminder. */
const CLOSED = new Set([COMPLETED, 'cancelled']);

/** A task is visible when it has no card or its card is visible (the cards area's rules); admins see all. */
function visibility(ctx: TenantContext) {
  const cardVisible = visibleCardsAcrossBoards(ctx);
  return cardVisible && repo.visibleTo(cardVisible);
}

export async function toTasks(tx: Tx, orgId: number, rows: repo.TaskRow[]): Promise<Task[]> {
  const assignees = await repo.assigneeIds(
    tx,
    orgId,
    rows.map((r) => r.id),
  );
  const refs = await membershipRefsByIds(tx, orgId, [...new Set([...assignees.values()].flat())]);
  const cards = await repo.cardRefs(tx, orgId, [
    ...new Set(rows.flatMap((r) => (r.cardId == null ? [] : [r.cardId]))),
  ]);
  return rows.map((r) => ({
    documentId: r.documentId,
    name: r.name,
    description: r.description,
    dueDate: iso(r.dueDate),
    type: r.type as Task['type'],
    taskStatus: r.taskStatus,
    completedAt: iso(r.completedAt),
    card: r.cardId == null ? null : (cards.get(r.cardId) ?? null),
    assignees: (assignees.get(r.id) ?? []).flatMap((id) => {
      const ref = refs.get(id);
      return ref ? [ref] : [];
    }),
    priority: r.priority as Task['priority'],
    recurrence: r.recurrence as Task['recurrence'],
    recurrenceInterval: r.recurrenceInterval,
    occurrenceNumber: r.occurrenceNumber,
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  }));
}

async function toTask(tx: Tx, orgId: number, row: repo.TaskRow) {
  return (await toTasks(tx, orgId, [row]))[0];
}

type CardWithBoard = NonNullable<Awaited<ReturnType<typeof repo.findCardWithBoard>>>;

const statusesOf = (card: CardWithBoard | undefined) =>
  card?.taskStatuses.length ? card.taskStatuses : DEFAULT_TASK_STATUSES;

/**
 * Changing a task on a card changes the card: 403 unless the caller may write the board's cards (editor, board
 * owner or admin) and, with restrictEditToAssignees, is assigned to the card.
 */
async function requireEditOf(tx: Tx, ctx: TenantContext, card: CardWithBoard) {
  await requireCardEdit(tx, ctx, await loadBoardForWrite(tx, ctx, card.boardDocumentId), card.id);
}

/**
 * The card to link a task to and the statuses its board allows; no card: the default set. A card the
 * caller cannot see reads as an unknown card (400); one it sees but may not edit is a 403.
 */
async function resolveCard(tx: Tx, ctx: TenantContext, cardDocumentId: string | null) {
  if (cardDocumentId == null) return { cardId: null, statuses: DEFAULT_TASK_STATUSES };
  const card = await repo.findCardWithBoard(
    tx,
    ctx.orgId,
    { documentId: cardDocumentId },
    visibleCardsAcrossBoards(ctx),
  );
  if (!card)
    throw validationError('Unknown card', [{ path: ['card'], message: `no card ${cardDocumentId}` }]);
  await requireEditOf(tx, ctx, card);
  return { cardId: card.id, statuses: statusesOf(card) };
}

/** Before changing a visible task: the caller may edit its card (403 otherwise). Returns the card's statuses. */
async function requireTaskEdit(tx: Tx, ctx: TenantContext, task: repo.TaskRow) {
  if (task.cardId == null) return DEFAULT_TASK_STATUSES;
  const card = await repo.findCardWithBoard(tx, ctx.orgId, { id: task.cardId });
  if (card) await requireEditOf(tx, ctx, card);
  return statusesOf(card);
}

async function statusesOfCard(tx: Tx, orgId: number, cardId: number | null) {
  if (cardId == null) return DEFAULT_TASK_STATUSES;
  return statusesOf(await repo.findCardWithBoard(tx, orgId, { id: cardId }));
}

function checkStatus(status: string, statuses: string[]) {
  if (!statuses.includes(status))
    throw validationError(
      `taskStatus must be one of ${statuses.join(', ')}`,
      [{ path: ['taskStatus'], message: `must be one of ${statuses.join(', ')}` }],
      { allowed: statuses },
    );
}

async function resolveAssignees(tx: Tx, orgId: number, documentIds: string[]) {
  const { ids, missing } = await membershipIdsByDocumentIds(tx, orgId, [...new Set(documentIds)]);
  if (missing.length)
    throw validationError(
      'Unknown assignees',
      missing.map((d) => ({ path: ['assignees'], message: `no membership ${d}` })),
    );
  return [...ids.values()];
}

/** When the reminder of a due date should run: the lead time before it, or now when that has passed. */
function reminderAt(config: Deps['config'], due: Date) {
  return new Date(Math.max(Date.now(), due.getTime() - config.CRM_TASK_REMINDER_LEAD_MINUTES * 60_000));
}

/** Cancels the task's pending reminder and, when it is open and due, schedules one for its due date. */
async function syncReminder(deps: Deps, tx: Tx, orgId: number, row: repo.TaskRow) {
  if (row.reminderJobId) await deps.jobs.cancel(reminderQueue, row.reminderJobId, { tx });
  let reminderJobId: string | null = null;
  if (row.dueDate && !CLOSED.has(row.taskStatus)) {
    reminderJobId = await deps.jobs.schedule(
      reminderQueue,
      { orgId, taskId: row.id },
      reminderAt(deps.config, row.dueDate),
      { tx },
    );
  }
  if (reminderJobId === row.reminderJobId) return row;
  return repo.updateTask(tx, orgId, row.id, { reminderJobId });
}

/**
 * The due date of the occurrence after `done`: computed from the series' first due date and the occurrence
 * number in the organization's time zone (./recurrence.ts), so monthly series keep their day of month and all
 * series their local time. When the first task is gone or no longer describes the series (its rule or interval
 * was changed on a later occurrence), there is no anchor: one step after the completed task's due date.
 */
async function nextDueDate(tx: Tx, orgId: number, done: repo.TaskRow & { dueDate: Date }) {
  const timeZone = (await organizationTimeZone(tx, orgId)) ?? DEFAULT_TIME_ZONE;
  const recurrence = done.recurrence as Recurrence;
  const first =
    done.recurrenceParentId == null ? done : await repo.findTaskById(tx, orgId, done.recurrenceParentId);
  if (
    first?.dueDate &&
    first.recurrence === done.recurrence &&
    first.recurrenceInterval === done.recurrenceInterval
  )
    return occurrenceDue(
      first.dueDate,
      recurrence,
      done.recurrenceInterval,
      done.occurrenceNumber + 1,
      timeZone,
    );
  return occurrenceDue(done.dueDate, recurrence, done.recurrenceInterval, 2, timeZone);
}

/** The next occurrence of a completed recurring task: created once per series step (unique key). */
async function createNextOccurrence(deps: Deps, tx: Tx, ctx: TenantContext, done: repo.TaskRow) {
  if (done.recurrence === 'none' || !done.dueDate) return;
  const dueDate = await nextDueDate(tx, ctx.orgId, { ...done, dueDate: done.dueDate });
  const statuses = await statusesOfCard(tx, ctx.orgId, done.cardId);
  const next = await repo.insertOccurrence(tx, ctx.orgId, {
    name: done.name,
    description: done.description,
    dueDate,
    type: done.type,
    taskStatus: statuses.find((s) => !CLOSED.has(s)) ?? statuses[0],
    cardId: done.cardId,
    priority: done.priority,
    recurrence: done.recurrence,
    recurrenceInterval: done.recurrenceInterval,
    recurrenceParentId: done.recurrenceParentId ?? done.id,
    occurrenceNumber: done.occurrenceNumber + 1,
    createdByMembershipId: done.createdByMembershipId,
  });
  if (!next) return;
  const assignees = await repo.assigneeIds(tx, ctx.orgId, [done.id]);
  await repo.setAssignees(tx, ctx.orgId, next.id, assignees.get(done.id) ?? []);
  await syncReminder(deps, tx, ctx.orgId, next);
}

export async function listTasks(ctx: TenantContext, query: ListQueryInput & { savedFilter?: string }) {
  const { savedFilter, ...requested } = query;
  return ctx.transaction(async (tx) => {
    const q = compileListQuery(
      repo.taskModel,
      await withSavedFilter(tx, ctx, 'tasks', savedFilter, requested),
    );
    const { rows, total } = await repo.listTasks(tx, ctx.orgId, q, visibility(ctx));
    return listPage(await toTasks(tx, ctx.orgId, rows), total, q);
  });
}

export async function getTask(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => {
    const row = await repo.findTask(tx, ctx.orgId, documentId, { visibility: visibility(ctx) });
    if (!row) throw notFound('Task');
    return toTask(tx, ctx.orgId, row);
  });
}

export async function createTask(deps: Deps, ctx: TenantContext, input: TaskInput) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const { cardId, statuses } = await resolveCard(tx, ctx, input.card ?? null);
    const taskStatus = input.taskStatus ?? statuses[0];
    checkStatus(taskStatus, statuses);
    const assignees = await resolveAssignees(tx, ctx.orgId, input.assignees);
    let row = await repo.insertTask(tx, ctx.orgId, {
      name: input.name,
      description: input.description ?? null,
      dueDate: input.dueDate ? new Date(input.dueDate) : null,
      type: input.type,
      taskStatus,
      completedAt: taskStatus === COMPLETED ? new Date() : null,
      cardId,
      priority: input.priority,
      recurrence: input.recurrence,
      recurrenceInterval: input.recurrenceInterval,
      createdByMembershipId: ctx.membershipId || null,
    });
    await repo.setAssignees(tx, ctx.orgId, row.id, assignees);
    row = await syncReminder(deps, tx, ctx.orgId, row);
    return toTask(tx, ctx.orgId, row);
  });
}

export async function updateTask(deps: Deps, ctx: TenantContext, documentId: string, input: TaskUpdate) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    // The row lock serialises concurrent writes of one task (two completions roll the series on once).
    const current = await repo.findTask(tx, ctx.orgId, documentId, {
      lock: true,
      visibility: visibility(ctx),
    });
    if (!current) throw notFound('Task');
    const currentStatuses = await requireTaskEdit(tx, ctx, current);
    const values: Partial<repo.TaskValues> = {};
    let statuses: string[] | undefined;
    if (input.card !== undefined) {
      const resolved = await resolveCard(tx, ctx, input.card);
      values.cardId = resolved.cardId;
      statuses = resolved.statuses;
    }
    const taskStatus = input.taskStatus ?? current.taskStatus;
    if (input.taskStatus !== undefined || statuses) checkStatus(taskStatus, statuses ?? currentStatuses);
    if (input.assignees !== undefined)
      await repo.setAssignees(
        tx,
        ctx.orgId,
        current.id,
        await resolveAssignees(tx, ctx.orgId, input.assignees),
      );
    for (const key of [
      'name',
      'description',
      'type',
      'priority',
      'recurrence',
      'recurrenceInterval',
    ] as const)
      if (input[key] !== undefined) Object.assign(values, { [key]: input[key] });
    if (input.dueDate !== undefined) values.dueDate = input.dueDate ? new Date(input.dueDate) : null;
    return applyChange(deps, tx, ctx, current, values, taskStatus);
  });
}

export async function setTaskStatus(deps: Deps, ctx: TenantContext, documentId: string, taskStatus: string) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const current = await repo.findTask(tx, ctx.orgId, documentId, {
      lock: true,
      visibility: visibility(ctx),
    });
    if (!current) throw notFound('Task');
    checkStatus(taskStatus, await requireTaskEdit(tx, ctx, current));
    return applyChange(deps, tx, ctx, current, {}, taskStatus);
  });
}

/** Writes a change; entering the completed status stamps completedAt and creates the next occurrence. */
async function applyChange(
  deps: Deps,
  tx: Tx,
  ctx: TenantContext,
  current: repo.TaskRow,
  values: Partial<repo.TaskValues>,
  taskStatus: string,
) {
  const completing = taskStatus === COMPLETED && current.taskStatus !== COMPLETED;
  if (taskStatus !== current.taskStatus) {
    values.taskStatus = taskStatus;
    values.completedAt = completing ? new Date() : taskStatus === COMPLETED ? current.completedAt : null;
  }
  let row = await repo.updateTask(tx, ctx.orgId, current.id, values);
  const dueChanged = (row.dueDate?.getTime() ?? null) !== (current.dueDate?.getTime() ?? null);
  if (dueChanged || CLOSED.has(row.taskStatus) !== CLOSED.has(current.taskStatus))
    row = await syncReminder(deps, tx, ctx.orgId, row);
  if (completing) await createNextOccurrence(deps, tx, ctx, row);
  const task = await toTask(tx, ctx.orgId, row);
  if (completing) await recordEvent(tx, ctx.orgId, 'task.completed', `task:${row.documentId}`, { task });
  return task;
}

export async function deleteTask(deps: Deps, ctx: TenantContext, documentId: string) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const row = await repo.findTask(tx, ctx.orgId, documentId, { lock: true, visibility: visibility(ctx) });
    if (!row) throw notFound('Task');
    await requireTaskEdit(tx, ctx, row);
    if (row.reminderJobId) await deps.jobs.cancel(reminderQueue, row.reminderJobId, { tx });
    await repo.deleteTask(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'task.deleted', row.documentId, { name: row.name });
    return { documentId: row.documentId, deleted: true as const };
  });
}
