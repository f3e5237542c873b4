import { and, count, eq } from 'drizzle-orm';
import type { Executor, Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { emailAssets, emailTemplates } from './table.js';

export const emailTemplateModel: QueryModel = {
  table: 'email_templates',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    subject: { column: 'subject', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
};
export const assetModel: QueryModel = {
  table: 'email_assets',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    filename: { column: 'filename', type: 'string' },
    mimeType: { column: 'mime_type', type: 'string' },
    size: { column: 'size', type: 'number' },
    createdAt: { column: 'created_at', type: 'datetime' },
  },
};

export type EmailTemplateRow = typeof emailTemplates.$inferSelect;
type Values = Pick<EmailTemplateRow, 'name' | 'subject' | 'html' | 'text'>;

export async function insertTemplate(tx: Tx, orgId: number, values: Values) {
  const [row] = await tx
    .insert(emailTemplates)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function findTemplate(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(emailTemplates)
    .where(and(eq(emailTemplates.organizationId, orgId), eq(emailTemplates.documentId, documentId)));
  return row as EmailTemplateRow | undefined;
}

export async function findTemplateById(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(emailTemplates)
    .where(and(eq(emailTemplates.organizationId, orgId), eq(emailTemplates.id, id)));
  return row as EmailTemplateRow | undefined;
}

export async function listTemplates(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(emailTemplates.organizationId, orgId), q.where);
  const rows = await tx
    .select()
    .from(emailTemplates)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(emailTemplates).where(where));
  return { rows, total };
}

export async function updateTemplate(tx: Tx, orgId: number, id: number, values: Partial<Values>) {
  await tx
    .update(emailTemplates)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(emailTemplates.organizationId, orgId), eq(emailTemplates.id, id)));
}

export async function deleteTemplate(tx: Tx, orgId: number, id: number) {
  await tx
    .delete(emailTemplates)
    .where(and(eq(emailTemplates.organizationId, orgId), eq(emailTemplates.id, id)));
}

// ---- assets

const assetColumns = {
  id: emailAssets.id,
  documentId: emailAssets.documentId,
  filename: emailAssets.filename,
  mimeType: emailAssets.mimeType,
  size: emailAssets.size,
  createdAt: emailAssets.createdAt,
};
export type AssetRow = {
  id: number;
  documentId: string;
  filename: string;
  mimeType: string;
  size: number;
  createdAt: Date;
};

export async function insertAsset(
  tx: Tx,
  orgId: number,
  values: { filename: string; mimeType: string; size: number; sha256: string; content: Buffer },
) {
  const [row] = await tx
    .insert(emailAssets)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning(assetColumns);
  return row as AssetRow;
}

export async function listAssets(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(emailAssets.organizationId, orgId), q.where);
  const rows = await tx
    .select(assetColumns)
    .from(emailAssets)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(emailAssets).where(where));
  return { rows: rows as AssetRow[], total };
}

export async function findAsset(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select(assetColumns)
    .from(emailAssets)
    .where(and(eq(emailAssets.organizationId, orgId), eq(emailAssets.documentId, documentId)));
  return row as AssetRow | undefined;
}

export async function deleteAsset(tx: Tx, orgId: number, id: number) {
  await tx.delete(emailAssets).where(and(eq(emailAssets.organizationId, orgId), eq(emailAssets.id, id)));
}

/** The organization of a public asset URL, found outside RLS (the URL carries no tenant). */
export async function assetOrganization(ex: Executor, documentId: string) {
  const [row] = await ex
    .select({ organizationId: emailAssets.organizationId })
    .from(emailAssets)
    .where(eq(emailAssets.documentId, documentId));
  return row?.organizationId;
}

export async function assetContent(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select({
      filename: emailAssets.filename,
      mimeType: emailAssets.mimeType,
      content: emailAssets.content,
      sha256: emailAssets.sha256,
    })
    .from(emailAssets)
    .where(and(eq(emailAssets.organizationId, orgId), eq(emailAssets.documentId, documentId)));
  return row;
}
