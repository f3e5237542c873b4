import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { chatMessages } from './table.js';

/** The inbox's messages: pages of a conversation, inserts (one or a payload's), delivery statuses, replays. */

export type MessageRow = typeof chatMessages.$inferSelect;

export async function messagePage(
  tx: Tx,
  orgId: number,
  conversationId: number,
  q: { before?: number; after?: number; limit: number },
) {
  const base = and(eq(chatMessages.organizationId, orgId), eq(chatMessages.conversationId, conversationId));
  if (q.after !== undefined) {
    // The `limit` messages just after the cursor (oldest first), then newest first like every page.
    const rows = await tx
      .select()
      .from(chatMessages)
      .where(and(base, gt(chatMessages.id, q.after)))
      .orderBy(asc(chatMessages.id))
      .limit(q.limit + 1);
    const hasMore = rows.length > q.limit;
    return { rows: rows.slice(0, q.limit).reverse(), hasMore };
  }
  const rows = await tx
    .select()
    .from(chatMessages)
    .where(and(base, q.before !== undefined ? lt(chatMessages.id, q.before) : undefined))
    .orderBy(desc(chatMessages.id))
    .limit(q.limit + 1);
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

export async function insertMessage(
  tx: Tx,
  orgId: number,
  values: Omit<typeof chatMessages.$inferInsert, 'organizationId' | 'id'>,
) {
  const [row] = await tx
    .insert(chatMessages)
    .values({ ...values, organizationId: orgId })
    .onConflictDoNothing()
    .returning();
  return row as MessageRow | undefined;
}

/** Several messages in one statement, in the list's order (their ids follow it); a stored provider id is skipped. */
export async function insertMessages(
  tx: Tx,
  orgId: number,
  values: Omit<typeof chatMessages.$inferInsert, 'organizationId' | 'id'>[],
) {
  if (values.length === 0) return [];
  const rows = await tx
    .insert(chatMessages)
    .values(values.map((v) => ({ ...v, organizationId: orgId })))
    .onConflictDoNothing()
    .returning();
  return rows as MessageRow[];
}

export async function findMessage(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.organizationId, orgId), eq(chatMessages.id, id)));
  return row as MessageRow | undefined;
}

export async function updateMessage(tx: Tx, orgId: number, id: number, values: Partial<MessageRow>) {
  const [row] = await tx
    .update(chatMessages)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(chatMessages.organizationId, orgId), eq(chatMessages.id, id)))
    .returning();
  return row;
}

const statusRank = { queued: 0, sent: 1, delivered: 2, read: 3, failed: 4 } as const;

/** A provider status moves a message forward only (a late `delivered` never undoes `read`). */
export async function applyStatus(
  tx: Tx,
  orgId: number,
  providerMessageId: string,
  status: 'sent' | 'delivered' | 'read' | 'failed',
  error: string | null,
) {
  const lower = Object.entries(statusRank)
    .filter(([, r]) => r < statusRank[status])
    .map(([s]) => s as MessageRow['status']);
  const [row] = await tx
    .update(chatMessages)
    .set({ status, error, updatedAt: new Date() })
    .where(
      and(
        eq(chatMessages.organizationId, orgId),
        eq(chatMessages.providerMessageId, providerMessageId),
        inArray(chatMessages.status, status === 'failed' ? ['queued', 'sent', 'delivered'] : lower),
      ),
    )
    .returning();
  return row as MessageRow | undefined;
}

/** Messages of these conversations created from `since` on, oldest first (a live stream's replay). */
export async function messagesSince(
  tx: Tx,
  orgId: number,
  conversationIds: number[],
  since: Date,
  limit: number,
) {
  if (conversationIds.length === 0) return [];
  const rows = await tx
    .select()
    .from(chatMessages)
    .where(
      and(
        eq(chatMessages.organizationId, orgId),
        inArray(chatMessages.conversationId, conversationIds),
        sql`${chatMessages.createdAt} >= ${since.toISOString()}`,
      ),
    )
    .orderBy(asc(chatMessages.id))
    .limit(limit);
  return rows as MessageRow[];
}
