import { sql } from 'drizzle-orm';
import { bigint, check, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';

export const ORG_EXPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type OrgExportStatus = (typeof ORG_EXPORT_STATUSES)[number];

/**
 * A whole-organization export (docs/lgpd.md, "Organizations that leave"): a job writes
 * `<CRM_DATA_DIR>/exports/<organization id>/<documentId>.tar.gz`; the owner downloads it once through a link
 * whose token only the answer that created it showed (only its SHA-256 is kept), before `expires_at`.
 */
export const organizationExports = pgTable(
  'organization_exports',
  {
    ...tenantColumns(),
    status: text('status').notNull().default('queued'),
    /** users.id of the owner who asked. */
    requestedBy: bigint('requested_by', { mode: 'number' }).notNull(),
    tokenHash: text('token_hash').notNull(),
    bytes: bigint('bytes', { mode: 'number' }),
    rows: bigint('rows', { mode: 'number' }),
    files: bigint('files', { mode: 'number' }),
    error: text('error'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    downloadedAt: timestamp('downloaded_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('organization_exports_org_document_id_key').on(t.organizationId, t.documentId),
    check('organization_exports_status_check', sql`${t.status} in ('queued','running','done','failed')`),
  ],
);
