import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns } from '../../platform/db/columns.js';
import { contacts } from '../contacts/table.js';

export const CONSENT_CHANNELS = ['whatsapp', 'email', 'sms'] as const;
export const CONSENT_PURPOSES = ['marketing', 'transactional'] as const;
export const CONSENT_STATUSES = ['granted', 'withdrawn'] as const;
/** LGPD art. 7 legal bases the service records (docs/lgpd.md, "Consent"). */
export const LEGAL_BASES = [
  'consent',
  'contract',
  'legal_obligation',
  'legitimate_interest',
  'credit_protection',
  'regular_exercise_of_rights',
] as const;
export const CONSENT_SOURCES = [
  'form',
  'import',
  'lead_ad',
  'inbox_keyword',
  'api',
  'manual',
  'unsubscribe',
] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];
export type ConsentPurpose = (typeof CONSENT_PURPOSES)[number];
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];
export type LegalBasis = (typeof LEGAL_BASES)[number];
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/**
 * The consent ledger: append-only (a trigger refuses UPDATE: consents/sql.ts). One row per statement of a
 * person's will (or of another legal basis) for one channel and purpose; the latest per (contact, channel,
 * purpose) is the current state, copied to `contact_consent_states` by a trigger for the sends' joins.
 */
export const contactConsents = pgTable(
  'contact_consents',
  {
    ...tenantColumns(),
    contactId: bigint('contact_id', { mode: 'number' }).notNull(),
    channel: text('channel', { enum: CONSENT_CHANNELS }).notNull(),
    purpose: text('purpose', { enum: CONSENT_PURPOSES }).notNull(),
    status: text('status', { enum: CONSENT_STATUSES }).notNull(),
    legalBasis: text('legal_basis', { enum: LEGAL_BASES }).notNull(),
    source: text('source', { enum: CONSENT_SOURCES }).notNull(),
    proof: jsonb('proof').$type<Record<string, unknown>>().notNull().default({}),
    recordedAt: timestamp('recorded_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** memberships.id of who recorded it; null for the person's own acts (forms, keywords, unsubscribe) and jobs. */
    recordedBy: bigint('recorded_by', { mode: 'number' }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('contact_consents_org_document_id_key').on(t.organizationId, t.documentId),
    index('contact_consents_org_contact_idx').on(
      t.organizationId,
      t.contactId,
      t.channel,
      t.purpose,
      t.recordedAt.desc(),
      t.id.desc(),
    ),
    check('contact_consents_proof_object', sql`jsonb_typeof(proof) = 'object'`),
    foreignKey({
      name: 'contact_consents_contact_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
  ],
);

/** The current state per (contact, channel, purpose): the latest ledger row, kept by a trigger (consents/sql.ts). */
export const contactConsentStates = pgTable(
  'contact_consent_states',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    contactId: bigint('contact_id', { mode: 'number' }).notNull(),
    channel: text('channel', { enum: CONSENT_CHANNELS }).notNull(),
    purpose: text('purpose', { enum: CONSENT_PURPOSES }).notNull(),
    status: text('status', { enum: CONSENT_STATUSES }).notNull(),
    consentId: bigint('consent_id', { mode: 'number' }).notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.contactId, t.channel, t.purpose] }),
    foreignKey({
      name: 'contact_consent_states_contact_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
  ],
);
