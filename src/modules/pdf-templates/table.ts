import { sql } from 'drizzle-orm';
import { boolean, check, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import type { PdfLayout } from './layout.js';

export const PDF_TEMPLATE_KINDS = ['quote'] as const;

export const pdfTemplates = pgTable(
  'pdf_templates',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    kind: text('kind').notNull().default('quote'),
    isDefault: boolean('is_default').notNull().default(false),
    layout: jsonb('layout').$type<PdfLayout>().notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('pdf_templates_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('pdf_templates_org_name_key').on(t.organizationId, t.name),
    // At most one default per organization and kind.
    uniqueIndex('pdf_templates_org_kind_is_default_key').on(t.organizationId, t.kind).where(sql`is_default`),
    check('pdf_templates_kind_check', sql`kind in ('quote')`),
  ],
);
