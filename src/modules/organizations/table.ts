import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { JOBS_NAMESPACE_DEFAULT } from '../../platform/db/namespace.js';
import { users } from '../users/table.js';

/** The time zone of organizations that do not choose one (docs/jobs-mail-tasks.md, Recurrence). */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** The tenants themselves: global, looked up by slug from the `x-tenant-id` header. */
export const organizations = pgTable(
  'organizations',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    documentId: text('document_id').notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    plan: text('plan').notNull(),
    /** IANA time zone the organization's calendar runs in: task recurrence (docs/tasks.md). */
    timeZone: text('time_zone').notNull().default(DEFAULT_TIME_ZONE),
    /** CRM_JOBS_NAMESPACE of the process that created it: whose background work it is (src/platform/db/namespace.ts). */
    jobsNamespace: text('jobs_namespace').notNull().default(JOBS_NAMESPACE_DEFAULT),
    /** Whether marketing sends need a granted consent of the channel (docs/lgpd.md, "Consent"). */
    marketingRequiresConsent: boolean('marketing_requires_consent').notNull().default(true),
    /** Inbound WhatsApp messages that, alone, withdraw WhatsApp marketing consent (compared trimmed, case-blind). */
    consentStopKeywords: text('consent_stop_keywords')
      .array()
      .notNull()
      .default(sql`'{PARAR,STOP,SAIR,DESCADASTRAR}'::text[]`),
    /**
     * How long kinds of records are kept, in days (docs/lgpd.md, "Retention"): only what differs from the
     * defaults; a kind set to null is kept forever.
     */
    retention: jsonb('retention').$type<Record<string, number | null>>().notNull().default({}),
    /** When the organization and all its data will be deleted (an owner scheduled it); null: not scheduled. */
    deletionScheduledAt: timestamp('deletion_scheduled_at', { withTimezone: true, mode: 'date' }),
    /** users.id of the owner who scheduled the deletion. */
    deletionRequestedBy: bigint('deletion_requested_by', { mode: 'number' }),
    /**
     * When the deletion job claimed the organization (docs/lgpd.md, "Deletion"): from then on the deletion cannot
     * be cancelled and the organization's API refuses writes (409); null: not started.
     */
    deletionStartedAt: timestamp('deletion_started_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('organizations_slug_key').on(t.slug),
    uniqueIndex('organizations_document_id_key').on(t.documentId),
  ],
);

export const memberships = pgTable(
  'memberships',
  {
    ...tenantColumns(),
    userId: bigint('user_id', { mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('memberships_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('memberships_org_user_key').on(t.organizationId, t.userId),
    // The one index not led by the tenant: "which organizations is this user in" (auth, GET /organizations).
    index('memberships_user_id_idx').on(t.userId),
  ],
);
