import { and, count, eq, inArray, notInArray } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { whatsappTemplates } from './table.js';

export const templateModel: QueryModel = {
  table: 'whatsapp_templates',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    language: { column: 'language', type: 'string' },
    category: { column: 'category', type: 'string' },
    status: { column: 'status', type: 'string' },
    externalId: { column: 'external_id', type: 'string' },
    syncedAt: { column: 'synced_at', type: 'datetime' },
    createdAt: { column: 'created_at', type: 'datetime' },
  },
};

export type TemplateRow = typeof whatsappTemplates.$inferSelect;
type Values = Omit<
  typeof whatsappTemplates.$inferInsert,
  'organizationId' | 'id' | 'documentId' | 'channelId'
>;

const scope = (orgId: number, channelId: number) =>
  and(eq(whatsappTemplates.organizationId, orgId), eq(whatsappTemplates.channelId, channelId));

export async function listTemplates(tx: Tx, orgId: number, channelId: number, q: CompiledList) {
  const where = and(scope(orgId, channelId), q.where);
  const rows = await tx
    .select()
    .from(whatsappTemplates)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(whatsappTemplates).where(where));
  return { rows, total };
}

export async function allTemplates(tx: Tx, orgId: number, channelId: number) {
  return tx.select().from(whatsappTemplates).where(scope(orgId, channelId)).orderBy(whatsappTemplates.name);
}

export async function findTemplate(tx: Tx, orgId: number, channelId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(whatsappTemplates)
    .where(and(scope(orgId, channelId), eq(whatsappTemplates.documentId, documentId)));
  return row as TemplateRow | undefined;
}

export async function findTemplateByDocumentId(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(whatsappTemplates)
    .where(and(eq(whatsappTemplates.organizationId, orgId), eq(whatsappTemplates.documentId, documentId)));
  return row as TemplateRow | undefined;
}

export async function insertTemplate(tx: Tx, orgId: number, channelId: number, values: Values) {
  const [row] = await tx
    .insert(whatsappTemplates)
    .values({ ...values, organizationId: orgId, channelId, documentId: newDocumentId() })
    .returning();
  return row;
}

/** Inserts or refreshes a template by (channel, name, language); tells which happened. */
export async function upsertTemplate(tx: Tx, orgId: number, channelId: number, values: Values) {
  const [row] = await tx
    .insert(whatsappTemplates)
    .values({ ...values, organizationId: orgId, channelId, documentId: newDocumentId() })
    .onConflictDoUpdate({
      target: [
        whatsappTemplates.organizationId,
        whatsappTemplates.channelId,
        whatsappTemplates.name,
        whatsappTemplates.language,
      ],
      set: { ...values, updatedAt: new Date() },
    })
    .returning();
  return row;
}

export async function deleteTemplate(tx: Tx, orgId: number, id: number) {
  await tx
    .delete(whatsappTemplates)
    .where(and(eq(whatsappTemplates.organizationId, orgId), eq(whatsappTemplates.id, id)));
}

/** Removes the channel's templates not in `keepIds`; returns how many. */
export async function deleteOthers(tx: Tx, orgId: number, channelId: number, keepIds: number[]) {
  const rows = await tx
    .delete(whatsappTemplates)
    .where(
      and(scope(orgId, channelId), keepIds.length ? notInArray(whatsappTemplates.id, keepIds) : undefined),
    )
    .returning({ id: whatsappTemplates.id });
  return rows.length;
}

export async function templatesByIds(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return [];
  return tx
    .select()
    .from(whatsappTemplates)
    .where(and(eq(whatsappTemplates.organizationId, orgId), inArray(whatsappTemplates.id, ids)));
}
