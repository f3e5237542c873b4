import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  foreignKey,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../db/columns.js';

export const IMPORT_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/**
 * A background CSV import (docs/decisions.md, "Background imports"): the uploaded file lives at
 * `<CRM_DATA_DIR>/imports/<organization id>/<documentId>.csv`; `byte_offset` / `line` are where the last committed
 * batch ended, advanced in that batch's transaction (a restart resumes there: each row is written exactly once).
 */
export const importJobs = pgTable(
  'import_jobs',
  {
    ...tenantColumns(),
    /** `contacts`, or `cards` (then `board_id`). */
    kind: text('kind').notNull(),
    boardId: bigint('board_id', { mode: 'number' }),
    status: text('status').notNull().default('queued'),
    /** The request's options (match keys, mapping, delimiter…), as the kind's handler reads them. */
    options: jsonb('options').$type<Record<string, unknown>>().notNull().default({}),
    /** Whose rights the rows are written with (the member who started the import). */
    createdByMembershipId: bigint('created_by_membership_id', { mode: 'number' }).notNull(),
    fileName: text('file_name'),
    bytesTotal: bigint('bytes_total', { mode: 'number' }).notNull(),
    /** The checkpoint: bytes of the file consumed and its physical line count, by committed batches. */
    byteOffset: bigint('byte_offset', { mode: 'number' }).notNull().default(0),
    line: bigint('line', { mode: 'number' }).notNull().default(0),
    /** The delimiter found in the header (kept so a resumed run parses the rest alike). */
    delimiter: text('delimiter'),
    rowsTotal: bigint('rows_total', { mode: 'number' }),
    rowsDone: bigint('rows_done', { mode: 'number' }).notNull().default(0),
    rowsCreated: bigint('rows_created', { mode: 'number' }).notNull().default(0),
    rowsUpdated: bigint('rows_updated', { mode: 'number' }).notNull().default(0),
    rowsFailed: bigint('rows_failed', { mode: 'number' }).notNull().default(0),
    /** Why the whole import failed (bad header, file gone), when status is failed. */
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('import_jobs_org_document_id_key').on(t.organizationId, t.documentId),
    check('import_jobs_status_check', sql`${t.status} in ('queued','running','done','failed','cancelled')`),
    check('import_jobs_kind_check', sql`${t.kind} in ('contacts','cards')`),
  ],
);

/** The rows an import skipped, with their line and reason (the first MAX_FAILURES_KEPT of a job). */
export const importJobFailures = pgTable(
  'import_job_failures',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    importJobId: bigint('import_job_id', { mode: 'number' }).notNull(),
    /** The data row's number (1 = the first row after the header). */
    row: bigint('row', { mode: 'number' }).notNull(),
    line: bigint('line', { mode: 'number' }).notNull(),
    field: text('field'),
    message: text('message').notNull(),
    seq: integer('seq').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.importJobId, t.row, t.seq] }),
    foreignKey({
      name: 'import_job_failures_job_fk',
      columns: [t.organizationId, t.importJobId],
      foreignColumns: [importJobs.organizationId, importJobs.id],
    }).onDelete('cascade'),
  ],
);
