import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { boards } from '../boards/table.js';
import { chatChannels } from '../channels/table.js';
import { chatInboxes } from '../inbox/table.js';
import { memberships } from '../organizations/table.js';
import { distributionQueueMembers as members, distributionQueues as queues } from './table.js';

export const queueModel: QueryModel = {
  table: 'distribution_queues',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    strategy: { column: 'strategy', type: 'string' },
    active: { column: 'active', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
};

export type QueueRow = typeof queues.$inferSelect & {
  boardDocumentId: string | null;
  boardName: string | null;
  /** An inbox is named after its channel. */
  inboxName: string | null;
};
export type MemberRow = typeof members.$inferSelect & { membershipDocumentId: string };

/** What a queue assigns: a board's new unassigned cards or an inbox's new inbound conversations. */
export type QueueTarget = { boardId: number } | { inboxId: number };

function selectQueues(tx: Tx, orgId: number) {
  return tx
    .select({
      q: queues,
      boardDocumentId: boards.documentId,
      boardName: boards.name,
      inboxName: chatChannels.name,
    })
    .from(queues)
    .leftJoin(boards, and(eq(boards.organizationId, orgId), eq(boards.id, queues.boardId)))
    .leftJoin(chatInboxes, and(eq(chatInboxes.organizationId, orgId), eq(chatInboxes.id, queues.inboxId)))
    .leftJoin(
      chatChannels,
      and(eq(chatChannels.organizationId, orgId), eq(chatChannels.id, chatInboxes.channelId)),
    );
}
const flatten = (r: {
  q: typeof queues.$inferSelect;
  boardDocumentId: string | null;
  boardName: string | null;
  inboxName: string | null;
}): QueueRow => ({
  ...r.q,
  boardDocumentId: r.boardDocumentId,
  boardName: r.boardName,
  inboxName: r.inboxName,
});

export async function findQueue(tx: Tx, orgId: number, documentId: string) {
  const [row] = await selectQueues(tx, orgId).where(
    and(eq(queues.organizationId, orgId), eq(queues.documentId, documentId)),
  );
  return row ? flatten(row) : undefined;
}

export async function listQueues(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(queues.organizationId, orgId), q.where);
  const rows = await selectQueues(tx, orgId)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(queues).where(where));
  return { rows: rows.map(flatten), total };
}

export async function membersOf(tx: Tx, orgId: number, queueIds: number[]) {
  if (queueIds.length === 0) return [];
  const rows = await tx
    .select({ m: members, membershipDocumentId: memberships.documentId })
    .from(members)
    .innerJoin(
      memberships,
      and(eq(memberships.organizationId, orgId), eq(memberships.id, members.membershipId)),
    )
    .where(and(eq(members.organizationId, orgId), inArray(members.queueId, queueIds)))
    .orderBy(asc(members.membershipId));
  return rows.map((r): MemberRow => ({ ...r.m, membershipDocumentId: r.membershipDocumentId }));
}

export interface QueueValues {
  name: string;
  boardId: number | null;
  inboxId: number | null;
  strategy: string;
  active: boolean;
}

export async function insertQueue(tx: Tx, orgId: number, values: QueueValues) {
  const [row] = await tx
    .insert(queues)
    .values({ organizationId: orgId, documentId: newDocumentId(), ...values })
    .returning({ id: queues.id, documentId: queues.documentId });
  return row;
}

export async function updateQueue(tx: Tx, orgId: number, id: number, values: Partial<QueueValues>) {
  await tx
    .update(queues)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(queues.organizationId, orgId), eq(queues.id, id)));
}

export async function deleteQueue(tx: Tx, orgId: number, id: number) {
  await tx.delete(queues).where(and(eq(queues.organizationId, orgId), eq(queues.id, id)));
}

export interface MemberValues {
  membershipId: number;
  weight: number;
  active: boolean;
}

/** Replaces the member list; those who stay keep their running weight, count and last assignment. */
export async function setMembers(tx: Tx, orgId: number, queueId: number, list: MemberValues[]) {
  const keep = list.map((m) => m.membershipId);
  await tx
    .delete(members)
    .where(
      and(
        eq(members.organizationId, orgId),
        eq(members.queueId, queueId),
        keep.length ? sql`${members.membershipId} not in ${keep}` : undefined,
      ),
    );
  for (const m of list)
    await tx
      .insert(members)
      .values({ organizationId: orgId, queueId, ...m })
      .onConflictDoUpdate({
        target: [members.organizationId, members.queueId, members.membershipId],
        set: { weight: m.weight, active: m.active },
      });
}

// ---- assignment

/**
 * The active queue of a board or an inbox, locked: assignments of one queue happen one at a time (the rotation
 * holds).
 */
export async function lockActiveQueue(tx: Tx, orgId: number, target: QueueTarget) {
  const on = 'boardId' in target ? sql`q.board_id = ${target.boardId}` : sql`q.inbox_id = ${target.inboxId}`;
  const [row] = await queryRows<{
    id: number;
    strategy: string;
    last_membership_id: number | null;
    plan: string;
  }>(
    tx,
    sql`select q.id, q.strategy, q.last_membership_id, o.plan from distribution_queues q
        join organizations o on o.id = q.organization_id
        where q.organization_id = ${orgId} and ${on} and q.active
        for update of q`,
  );
  return row;
}

/** Locks a queue row (before its members: the order card creation takes them in, so the two never deadlock). */
export async function lockQueue(tx: Tx, orgId: number, id: number) {
  await tx.execute(
    sql`select 1 from distribution_queues where organization_id = ${orgId} and id = ${id} for update`,
  );
}

export interface Candidate {
  membershipId: number;
  weight: number;
  currentWeight: number;
  lastAssignedAt: Date | null;
  /** least_open: the member's open cards on the board (not in its won or lost phase), or open conversations of the inbox. */
  open: number;
}

function openCount(target: QueueTarget) {
  if ('inboxId' in target)
    return sql`(select count(*)::int from conversations cv
                 where cv.organization_id = m.organization_id and cv.assignee_membership_id = m.membership_id
                   and cv.inbox_id = ${target.inboxId} and cv.status = 'open')`;
  return sql`(select count(*)::int from card_assignees ca
               join cards c on c.organization_id = ca.organization_id and c.id = ca.card_id
               join boards b on b.organization_id = c.organization_id and b.id = c.board_id
              where ca.organization_id = m.organization_id and ca.membership_id = m.membership_id
                and c.board_id = ${target.boardId}
                and c.current_phase_id is distinct from b.won_phase_id
                and c.current_phase_id is distinct from b.lost_phase_id)`;
}

/**
 * The queue's active members in membership order. An inbox queue skips viewers (a member made a viewer after
 * joining the queue): they read conversations but cannot answer them.
 */
export async function candidates(
  tx: Tx,
  orgId: number,
  queueId: number,
  target: QueueTarget,
  withOpen: boolean,
) {
  const rows = await queryRows<{
    membership_id: number;
    weight: number;
    current_weight: number;
    last_assigned_at: Date | string | null;
    open: number;
  }>(
    tx,
    sql`select m.membership_id, m.weight, m.current_weight, m.last_assigned_at,
          ${withOpen ? openCount(target) : sql`0`} as open
        from distribution_queue_members m
        ${
          'inboxId' in target
            ? sql`join memberships ms on ms.organization_id = m.organization_id and ms.id = m.membership_id
                    and ms.role <> 'viewer'`
            : sql``
        }
        where m.organization_id = ${orgId} and m.queue_id = ${queueId} and m.active
        order by m.membership_id`,
  );
  return rows.map(
    (r): Candidate => ({
      membershipId: Number(r.membership_id),
      weight: r.weight,
      currentWeight: r.current_weight,
      lastAssignedAt: r.last_assigned_at ? new Date(r.last_assigned_at) : null,
      open: r.open,
    }),
  );
}

/** The roles of memberships of the organization (inbox queues refuse viewers). */
export async function rolesOf(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, string>();
  const rows = await tx
    .select({ id: memberships.id, role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.organizationId, orgId), inArray(memberships.id, ids)));
  return new Map(rows.map((r) => [r.id, r.role]));
}

export async function recordAssignment(
  tx: Tx,
  orgId: number,
  queueId: number,
  chosen: number,
  weights?: Map<number, number>,
) {
  await tx.execute(
    sql`update distribution_queues set last_membership_id = ${chosen}
        where organization_id = ${orgId} and id = ${queueId}`,
  );
  await tx.execute(
    sql`update distribution_queue_members set assigned_count = assigned_count + 1, last_assigned_at = now()
        where organization_id = ${orgId} and queue_id = ${queueId} and membership_id = ${chosen}`,
  );
  for (const [membershipId, w] of weights ?? [])
    await tx.execute(
      sql`update distribution_queue_members set current_weight = ${w}
          where organization_id = ${orgId} and queue_id = ${queueId} and membership_id = ${membershipId}`,
    );
}
