import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';

/**
 * Invitations to join an organization (POST /memberships). The link's token is kept only as its SHA-256:
 * the table never holds a usable secret. `status` is pending, accepted or declined; a revoked invitation is
 * deleted; "expired" is a pending one past `expires_at` (derived when read).
 */
export const invitations = pgTable(
  'invitations',
  {
    ...tenantColumns(),
    /** Lowercased; compared with the accepting account's e-mail. */
    email: text('email').notNull(),
    role: text('role').notNull(),
    status: text('status').notNull().default('pending'),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** No foreign key: a removed inviter reads back as `invitedBy: null` (like boards' owner). */
    invitedByMembershipId: bigint('invited_by_membership_id', { mode: 'number' }),
    respondedAt: timestamp('responded_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('invitations_org_document_id_key').on(t.organizationId, t.documentId),
    // One pending invitation per address: inviting again refreshes it instead of adding a second one.
    uniqueIndex('invitations_org_pending_email_key')
      .on(t.organizationId, t.email)
      .where(sql`status = 'pending'`),
    // Not led by the tenant: the link carries only the token, so accepting finds the organization by it.
    index('invitations_token_hash_idx').on(t.tokenHash),
  ],
);
