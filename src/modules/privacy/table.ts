import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';

export const PRIVACY_REQUEST_KINDS = ['data_export', 'erasure'] as const;
export const PRIVACY_REQUEST_STATUSES = ['queued', 'running', 'done', 'failed'] as const;

/**
 * A data subject's request (LGPD art. 18; docs/lgpd.md): a person's data exported (a zip downloadable once by a
 * one-time link) or erased. Ids only: no personal data is kept here, so the row outlives the erasure as its record.
 */
export const privacyRequests = pgTable(
  'privacy_requests',
  {
    ...tenantColumns(),
    kind: text('kind', { enum: PRIVACY_REQUEST_KINDS }).notNull(),
    /** contacts.id; no foreign key: an erased contact's request stays as the record of the erasure. */
    contactId: bigint('contact_id', { mode: 'number' }).notNull(),
    status: text('status', { enum: PRIVACY_REQUEST_STATUSES }).notNull().default('queued'),
    error: text('error'),
    requestedByMembershipId: bigint('requested_by_membership_id', { mode: 'number' }),
    /** An export's zip size, once written. */
    fileBytes: bigint('file_bytes', { mode: 'number' }),
    /** An export's link stops working then (the file is removed). */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    downloadedAt: timestamp('downloaded_at', { withTimezone: true, mode: 'date' }),
    /**
     * An export's one-time link: the SHA-256 of its token (the token itself was shown once, in the answer to the
     * request; docs/decisions.md, "One kind of one-time link").
     */
    tokenHash: text('token_hash'),
    /** What the job did: rows per table (counts only). */
    summary: jsonb('summary').$type<Record<string, number>>().notNull().default({}),
    /**
     * What went wrong after an erasure committed (the person's data is gone from the database, but e.g. a file
     * could not be removed): the request stays `done` and says so here (docs/lgpd.md, "Request states").
     */
    warnings: text('warnings').array().notNull().default(sql`'{}'::text[]`),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('privacy_requests_org_document_id_key').on(t.organizationId, t.documentId),
    index('privacy_requests_org_contact_idx').on(t.organizationId, t.contactId),
    // The download finds its request by the link's token alone (as API tokens are found).
    uniqueIndex('privacy_requests_token_hash_key').on(t.tokenHash),
  ],
);
