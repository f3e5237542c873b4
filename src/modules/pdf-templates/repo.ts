import { and, count, eq, ne, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { PDF_TEMPLATE_KINDS, pdfTemplates } from './table.js';

export const templateModel: QueryModel = {
  table: 'pdf_templates',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    kind: { column: 'kind', type: 'string', values: PDF_TEMPLATE_KINDS },
    isDefault: { column: 'is_default', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
};

export type TemplateRow = typeof pdfTemplates.$inferSelect;
type TemplateValues = Pick<typeof pdfTemplates.$inferInsert, 'name' | 'kind' | 'isDefault' | 'layout'>;

const byDocumentId = (orgId: number, documentId: string) =>
  and(eq(pdfTemplates.organizationId, orgId), eq(pdfTemplates.documentId, documentId));

export async function insertTemplate(tx: Tx, orgId: number, values: TemplateValues) {
  const [row] = await tx
    .insert(pdfTemplates)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function findTemplate(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx.select().from(pdfTemplates).where(byDocumentId(orgId, documentId));
  return row;
}

export async function findDefaultTemplate(tx: Tx, orgId: number, kind: string) {
  const [row] = await tx
    .select()
    .from(pdfTemplates)
    .where(
      and(
        eq(pdfTemplates.organizationId, orgId),
        eq(pdfTemplates.kind, kind),
        eq(pdfTemplates.isDefault, true),
      ),
    );
  return row;
}

export async function listTemplates(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(pdfTemplates.organizationId, orgId), q.where);
  const rows = await tx
    .select()
    .from(pdfTemplates)
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(pdfTemplates).where(where));
  return { rows, total };
}

export async function updateTemplate(tx: Tx, orgId: number, id: number, values: Partial<TemplateValues>) {
  const [row] = await tx
    .update(pdfTemplates)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(pdfTemplates.organizationId, orgId), eq(pdfTemplates.id, id)))
    .returning();
  return row;
}

export async function deleteTemplate(tx: Tx, orgId: number, id: number) {
  await tx.delete(pdfTemplates).where(and(eq(pdfTemplates.organizationId, orgId), eq(pdfTemplates.id, id)));
}

/**
 * Makes room for a new default of `kind`: serialises default changes of the organization (a
 * transaction-scoped advisory lock), then clears the current default unless it is `keepId`.
 */
export async function clearDefault(tx: Tx, orgId: number, kind: string, keepId?: number) {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`pdf_templates.default:${orgId}`}, 0))`,
  );
  await tx
    .update(pdfTemplates)
    .set({ isDefault: false, updatedAt: new Date() })
    .where(
      and(
        eq(pdfTemplates.organizationId, orgId),
        eq(pdfTemplates.kind, kind),
        eq(pdfTemplates.isDefault, true),
        keepId === undefined ? undefined : ne(pdfTemplates.id, keepId),
      ),
    );
}
