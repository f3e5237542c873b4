import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { notifications } from './table.js';

export type NotificationRow = typeof notifications.$inferSelect;
export type NotificationValues = Pick<
  typeof notifications.$inferInsert,
  'membershipId' | 'type' | 'title' | 'body' | 'subject' | 'dedupeKey' | 'actorMembershipId'
>;

/** The new notification, or undefined when this member already has one with the key (a retried job). */
export async function insertNotification(tx: Tx, orgId: number, values: NotificationValues) {
  const [row] = await tx
    .insert(notifications)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .onConflictDoNothing({
      target: [notifications.organizationId, notifications.membershipId, notifications.dedupeKey],
    })
    .returning();
  return row as NotificationRow | undefined;
}

export async function listNotifications(
  tx: Tx,
  orgId: number,
  membershipId: number,
  opts: { unread: boolean; offset: number; limit: number },
) {
  const where = and(
    eq(notifications.organizationId, orgId),
    eq(notifications.membershipId, membershipId),
    opts.unread ? isNull(notifications.readAt) : undefined,
  );
  const rows = await tx
    .select()
    .from(notifications)
    .where(where)
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .offset(opts.offset)
    .limit(opts.limit);
  const [{ total }] = await tx.select({ total: count() }).from(notifications).where(where);
  return { rows, total };
}

export async function markRead(tx: Tx, orgId: number, membershipId: number, documentId: string) {
  const where = and(
    eq(notifications.organizationId, orgId),
    eq(notifications.membershipId, membershipId),
    eq(notifications.documentId, documentId),
  );
  const [row] = await tx.select().from(notifications).where(where).for('update');
  if (!row || row.readAt) return row;
  const [updated] = await tx.update(notifications).set({ readAt: new Date() }).where(where).returning();
  return updated;
}

/** Every unread notification of the member, read now; answers how many. */
export async function markAllRead(tx: Tx, orgId: number, membershipId: number) {
  const rows = await tx
    .update(notifications)
    .set({ readAt: new Date() })
    .where(
      and(
        eq(notifications.organizationId, orgId),
        eq(notifications.membershipId, membershipId),
        isNull(notifications.readAt),
      ),
    )
    .returning({ id: notifications.id });
  return rows.length;
}

/** The body of every notification made under one key (a mention's, when its comment is edited). */
export async function setBodyByKey(tx: Tx, orgId: number, dedupeKey: string, body: string) {
  await tx
    .update(notifications)
    .set({ body })
    .where(and(eq(notifications.organizationId, orgId), eq(notifications.dedupeKey, dedupeKey)));
}
