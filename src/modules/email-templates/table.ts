import { customType, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';

export const emailTemplates = pgTable(
  'email_templates',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    subject: text('subject').notNull(),
    html: text('html').notNull(),
    text: text('text'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('email_templates_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('email_templates_org_name_key').on(t.organizationId, t.name),
  ],
);

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => Buffer.from(v),
});

/**
 * Images for e-mail templates, kept in the database (small by rule: ≤ 2 MB each) so every API process serves
 * them from one stable public URL, /api/email-assets/{documentId}/{filename}, as long as the asset exists.
 */
export const emailAssets = pgTable(
  'email_assets',
  {
    ...tenantColumns(),
    filename: text('filename').notNull(),
    mimeType: text('mime_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    content: bytea('content').notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('email_assets_org_document_id_key').on(t.organizationId, t.documentId),
    index('email_assets_document_id_idx').on(t.documentId),
  ],
);
