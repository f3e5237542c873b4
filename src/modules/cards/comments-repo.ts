import { and, asc, eq, sql } from 'drizzle-orm';
import { deferStatement, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { comments } from './table.js';

/** The card comments' SQL: members' comments and the history entries the card writes record (service.ts). */

export type CommentRow = typeof comments.$inferSelect;
export type CommentValues = Omit<typeof comments.$inferInsert, 'organizationId' | 'id' | 'documentId'>;

const insertCommentsSql = (tx: Tx, orgId: number, values: CommentValues[]) =>
  tx
    .insert(comments)
    .values(values.map((v) => ({ ...v, organizationId: orgId, documentId: newDocumentId() })));

export async function insertComments(tx: Tx, orgId: number, values: CommentValues[]) {
  if (values.length === 0) return [];
  return insertCommentsSql(tx, orgId, values).returning();
}

/** History entries nobody reads back here: the insert leaves with the transaction's next statement. */
export async function recordHistory(tx: Tx, orgId: number, values: CommentValues[]) {
  if (values.length === 0) return;
  await deferStatement(tx, insertCommentsSql(tx, orgId, values).getSQL(), values.length === 1);
}

export async function listComments(tx: Tx, orgId: number, cardId: number, offset: number, limit: number) {
  const where = and(eq(comments.organizationId, orgId), eq(comments.cardId, cardId));
  const rows = await tx
    .select()
    .from(comments)
    .where(where)
    .orderBy(asc(comments.createdAt), asc(comments.id))
    .offset(offset)
    .limit(limit);
  const [{ total }] = await tx.select({ total: sql<number>`count(*)::int` }).from(comments).where(where);
  return { rows, total };
}

export async function findComment(tx: Tx, orgId: number, cardId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(comments)
    .where(
      and(
        eq(comments.organizationId, orgId),
        eq(comments.cardId, cardId),
        eq(comments.documentId, documentId),
      ),
    );
  return row;
}

export async function updateComment(tx: Tx, orgId: number, id: number, values: Partial<CommentValues>) {
  const [row] = await tx
    .update(comments)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(comments.organizationId, orgId), eq(comments.id, id)))
    .returning();
  return row;
}

export async function deleteComment(tx: Tx, orgId: number, id: number) {
  await tx.delete(comments).where(and(eq(comments.organizationId, orgId), eq(comments.id, id)));
}
