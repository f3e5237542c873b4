import { sql } from 'drizzle-orm';
import {
  bigint,
  date,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';

export const contacts = pgTable(
  'contacts',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    email: text('email'),
    phone: text('phone'),
    contactType: text('contact_type').notNull().default('pessoa'),
    cpf: text('cpf'),
    cnpj: text('cnpj'),
    address: text('address'),
    city: text('city'),
    state: text('state'),
    country: text('country'),
    postalCode: text('postal_code'),
    birthdate: date('birthdate', { mode: 'string' }),
    firstBuyDate: date('first_buy_date', { mode: 'string' }),
    /** memberships.id; no foreign key: a removed membership reads back as no owner (docs/contacts.md). */
    ownerId: bigint('owner_id', { mode: 'number' }),
    ownedAt: timestamp('owned_at', { withTimezone: true, mode: 'date' }),
    /** teams.id; deleting a team clears it (teams service). */
    teamId: bigint('team_id', { mode: 'number' }),
    customFields: jsonb('custom_fields').$type<Record<string, unknown>>().notNull().default({}),
    /** What `q` searches, trigram-indexed (pg_trgm + btree_gin, created by migrate.ts). */
    searchText: text('search_text').generatedAlwaysAs(
      // Folded (lowercased, accents removed: platform/db/search-fold.ts) so `q` is accent-blind.
      sql`crm_fold(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(cpf, '') || ' ' || coalesce(cnpj, ''))`,
    ),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('contacts_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('contacts_org_cpf_key').on(t.organizationId, t.cpf).where(sql`cpf is not null`),
    uniqueIndex('contacts_org_cnpj_key').on(t.organizationId, t.cnpj).where(sql`cnpj is not null`),
    index('contacts_org_email_idx').on(t.organizationId, t.email),
    // Matching by e-mail is case-insensitive (lead ads and public forms: match-or-make.ts).
    index('contacts_org_email_lower_idx').on(t.organizationId, sql`lower(${t.email})`),
    index('contacts_org_owner_idx').on(t.organizationId, t.ownerId),
    index('contacts_org_team_idx').on(t.organizationId, t.teamId),
    // The list's default order, exactly (`created_at DESC NULLS LAST, id DESC`: docs/performance.md): a page is an
    // index walk that stops when full; scanned backwards it serves `createdAt:asc` (ASC NULLS FIRST, id ASC) too.
    index('contacts_org_created_idx').on(
      t.organizationId,
      t.createdAt.desc().nullsLast(),
      t.id.desc().nullsFirst(),
    ),
    // `sort=name:asc` (ASC NULLS FIRST, id ASC) exactly; backwards, name:desc.
    index('contacts_org_name_idx').on(t.organizationId, t.name.asc().nullsFirst(), t.id.asc()),
    // Matching an import's rows by phone (`matchBy=phone`: import.ts) and lead ads' and forms' match by phone
    // (match-or-make.ts) look phones up by equality.
    index('contacts_org_phone_idx').on(t.organizationId, t.phone),
    // `$contains`/`$containsi`/`$startsWith`… on the searchable text columns: `crm_fold(column) LIKE
    // crm_fold(pattern)` (list-query.ts), which this index over the same expressions answers (crm_fold is
    // LEAKPROOF: migrate.ts). The exact forms add `column LIKE pattern`, checked on the rows the index found (an
    // exact match is also a folded one), so one trigram index serves both (docs/performance.md "Imports of a
    // million rows": a second index over the raw columns cost a quarter of an import's time).
    index('contacts_text_fold_trgm_idx').using(
      'gin',
      t.organizationId,
      sql`crm_fold(${t.name}) gin_trgm_ops`,
      sql`crm_fold(${t.email}) gin_trgm_ops`,
      sql`crm_fold(${t.phone}) gin_trgm_ops`,
      sql`crm_fold(${t.city}) gin_trgm_ops`,
    ),
    index('contacts_search_idx').using('gin', t.organizationId, t.searchText.op('gin_trgm_ops')),
  ],
);

/**
 * A narrow copy of each contact's name, folded (crm_fold: lowercased, accents removed), for the exact total of `filters[name][$containsi]`
 * (name-search.ts, docs/performance.md "Fifth pass", "Scoped trigram keys"): the count is a bitmap scan of this
 * table's GIN index of scoped trigram keys whose candidates are decided on a few hundred narrow pages with a plain
 * LIKE, where the contacts' own trigram index rechecks every match on the wide heap (thousands of pages). Kept by
 * statement triggers on `contacts` inside the writing statement; no foreign key (the delete trigger removes the rows,
 * like the card counts').
 */
export const contactNameSearch = pgTable(
  'contact_name_search',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    contactId: bigint('contact_id', { mode: 'number' }).notNull(),
    /** crm_fold(contacts.name) (0.1.0: lower(contacts.name)). */
    name: text('name').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.contactId] }),
    // The name's trigrams hashed with the organization (crm_trgm_keys, platform/db/search-fold.ts): a search reads
    // posting lists of the organization's own keys, not its whole list (docs/performance.md "Scoped trigram keys").
    index('contact_name_search_keys_idx').using('gin', sql`crm_trgm_keys(${t.organizationId}, ${t.name})`),
  ],
);

/** The contact timeline (spec: ContactActivity). Deleting a contact deletes its timeline. */
export const contactActivities = pgTable(
  'contact_activities',
  {
    ...tenantColumns(),
    contactId: bigint('contact_id', { mode: 'number' }).notNull(),
    activityType: text('activity_type').notNull(),
    description: text('description').notNull(),
    performedAt: timestamp('performed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** memberships.id of who did it; null for system actions. */
    actorId: bigint('actor_id', { mode: 'number' }),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('contact_activities_org_document_id_key').on(t.organizationId, t.documentId),
    index('contact_activities_org_contact_idx').on(t.organizationId, t.contactId, t.performedAt, t.id),
    foreignKey({
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
  ],
);

/**
 * The number of contacts per organization (counts.ts): statement triggers on `contacts` only INSERT into
 * `contact_count_deltas`; readers add the deltas and fold them into `contact_counts` now and then. The true count
 * is always `contact_counts + contact_count_deltas`. No foreign keys, like the card counts.
 */
export const contactCounts = pgTable('contact_counts', {
  organizationId: bigint('organization_id', { mode: 'number' }).notNull().primaryKey(),
  contactCount: bigint('contact_count', { mode: 'number' }).notNull(),
});

export const contactCountDeltas = pgTable(
  'contact_count_deltas',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    contactCount: bigint('contact_count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.id] })],
);
