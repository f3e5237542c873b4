import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  foreignKey,
  index,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { boards, inList, tags } from '../boards/table.js';
import { memberships } from '../organizations/table.js';

export const DUE_DATE_SOURCES = ['manual', 'phase', 'automation'] as const;
export const CREATION_SOURCES = [
  'manual',
  'form',
  'lead_ads',
  'automation',
  'chat_inbound',
  'import',
  'api',
] as const;
export const TRACKING_KEYS = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'gclid',
  'fbclid',
] as const;
export const CONTENT_FORMATS = ['plain', 'html'] as const;
export const COMMENT_TYPES = ['user', 'system'] as const;

export type Tracking = Partial<Record<(typeof TRACKING_KEYS)[number], string>>;

/**
 * Cards. Dynamic field values live in `fields`, one jsonb object keyed by the field definition's
 * documentId (stable when a field's slug is renamed) holding the normalised value (docs/cards.md).
 * `current_phase_id` and `contact_id` carry no foreign key: a composite SET NULL would also null
 * organization_id; a card whose phase or contact is gone reads back without it.
 */
export const cards = pgTable(
  'cards',
  {
    ...tenantColumns(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    title: text('title').notNull(),
    description: text('description'),
    value: numeric('value', { precision: 14, scale: 2, mode: 'number' }).notNull().default(0),
    dueDate: timestamp('due_date', { withTimezone: true, mode: 'date' }),
    dueDateSource: text('due_date_source'),
    currentPhaseId: bigint('current_phase_id', { mode: 'number' }),
    currentPhaseEnteredAt: timestamp('current_phase_entered_at', { withTimezone: true, mode: 'date' })
      .notNull()
      .defaultNow(),
    contactId: bigint('contact_id', { mode: 'number' }),
    creationSource: text('creation_source').notNull().default('api'),
    tracking: jsonb('tracking').$type<Tracking>().notNull().default({}),
    fields: jsonb('fields').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('cards_org_document_id_key').on(t.organizationId, t.documentId),
    // The card list, stats and report: a tenant + board (+ phase) prefix, never a scan of the tenant. The
    // column order matches the list's default `ORDER BY created_at DESC NULLS LAST, id DESC` exactly, so a
    // page (and a deep page) is an index walk that stops after offset + limit entries (docs/performance.md).
    // `id desc` sorts NULLS FIRST and drizzle's desc() writes NULLS LAST: the index must say the same as the
    // ORDER BY or the planner sorts again (id is never null, but pathkeys compare the NULLS clause).
    index('cards_org_board_created_idx').on(
      t.organizationId,
      t.boardId,
      t.createdAt.desc().nullsLast(),
      t.id.desc().nullsFirst(),
    ),
    // The same order within one phase; due_date, value and current_phase_entered_at trail (drizzle has no
    // INCLUDE) so the stats of a phase (overdue, value sum, SLA) are an index-only scan.
    index('cards_org_board_phase_created_idx').on(
      t.organizationId,
      t.boardId,
      t.currentPhaseId,
      t.createdAt.desc().nullsLast(),
      t.id.desc().nullsFirst(),
      t.dueDate,
      t.value,
      t.currentPhaseEnteredAt,
    ),
    // `$contains`/`$containsi` and the other text operators (LIKE, marked LEAKPROOF by migrate.ts so RLS lets it
    // use the index) on the card's searchable text, accent-blind for the insensitive forms (`crm_fold(column) LIKE
    // crm_fold(pattern)`: list-query.ts, search-fold.ts). The exact forms state the folded condition they imply
    // beside their exact LIKE, so this one index serves both (migration 0018 dropped the raw-text one, as 0015 did
    // for contacts). The count is a bitmap scan of it; the page an ordered walk of the created index that stops
    // when full, or this index plus a top-N sort when the match is rare (the planner's choice, docs/performance.md).
    index('cards_text_fold_trgm_idx').using(
      'gin',
      t.organizationId,
      t.boardId,
      sql`crm_fold(${t.title}) gin_trgm_ops`,
      sql`crm_fold(${t.description}) gin_trgm_ops`,
    ),
    index('cards_org_board_due_idx').on(t.organizationId, t.boardId, t.dueDate),
    // The SLA part of a phase's stats: cards that entered the phase within its SLA (a short recent range).
    index('cards_org_board_phase_entered_idx').on(
      t.organizationId,
      t.boardId,
      t.currentPhaseId,
      t.currentPhaseEnteredAt,
    ),
    index('cards_org_contact_idx').on(t.organizationId, t.contactId),
    // Dynamic-field equality filters (`fields @> {...}`, jsonb_contains marked LEAKPROOF), tenant-led (btree_gin).
    index('cards_fields_gin_idx').using('gin', t.organizationId, t.boardId, t.fields.op('jsonb_path_ops')),
    foreignKey({
      name: 'cards_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    check(
      'cards_due_date_source_check',
      sql`due_date_source is null or ${inList('due_date_source', DUE_DATE_SOURCES)}`,
    ),
    check('cards_creation_source_check', inList('creation_source', CREATION_SOURCES)),
  ],
);

export const cardTags = pgTable(
  'card_tags',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    cardId: bigint('card_id', { mode: 'number' }).notNull(),
    tagId: bigint('tag_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.cardId, t.tagId] }),
    index('card_tags_org_tag_idx').on(t.organizationId, t.tagId, t.cardId),
    foreignKey({
      name: 'card_tags_card_fk',
      columns: [t.organizationId, t.cardId],
      foreignColumns: [cards.organizationId, cards.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'card_tags_tag_fk',
      columns: [t.organizationId, t.tagId],
      foreignColumns: [tags.organizationId, tags.id],
    }).onDelete('cascade'),
  ],
);

export const cardAssignees = pgTable(
  'card_assignees',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    cardId: bigint('card_id', { mode: 'number' }).notNull(),
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.cardId, t.membershipId] }),
    index('card_assignees_org_membership_idx').on(t.organizationId, t.membershipId, t.cardId),
    foreignKey({
      name: 'card_assignees_card_fk',
      columns: [t.organizationId, t.cardId],
      foreignColumns: [cards.organizationId, cards.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'card_assignees_membership_fk',
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
  ],
);

/** User comments and the card's history (system comments with an activityType). */
export const comments = pgTable(
  'comments',
  {
    ...tenantColumns(),
    cardId: bigint('card_id', { mode: 'number' }).notNull(),
    content: text('content').notNull(),
    contentFormat: text('content_format').notNull().default('plain'),
    type: text('type').notNull().default('user'),
    activityType: text('activity_type'),
    mentions: text('mentions').array().notNull().default(sql`'{}'::text[]`),
    /** memberships.id of the author; null for public-form and removed members. */
    authorMembershipId: bigint('author_membership_id', { mode: 'number' }),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('comments_org_document_id_key').on(t.organizationId, t.documentId),
    index('comments_org_card_idx').on(t.organizationId, t.cardId, t.createdAt),
    foreignKey({
      name: 'comments_card_fk',
      columns: [t.organizationId, t.cardId],
      foreignColumns: [cards.organizationId, cards.id],
    }).onDelete('cascade'),
    check('comments_content_format_check', inList('content_format', CONTENT_FORMATS)),
    check('comments_type_check', inList('type', COMMENT_TYPES)),
  ],
);

/**
 * Files received by the public upload (or the API), referenced from file-type field values. A file belongs
 * to the first card that takes it (`card_id`, set in the card's transaction; null until then): it goes with
 * that card or its board, and one left unattached is swept after a grace period (files.ts).
 */
export const cardFiles = pgTable(
  'card_files',
  {
    ...tenantColumns(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    cardId: bigint('card_id', { mode: 'number' }),
    name: text('name').notNull(),
    mimeType: text('mime_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    /** Path under `<CRM_DATA_DIR>/uploads`, built from ids only (never from the client's file name). */
    storageKey: text('storage_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('card_files_org_document_id_key').on(t.organizationId, t.documentId),
    // A card's files (its delete), and the unattached ones by age (the sweep: card_id is null).
    index('card_files_org_card_created_idx').on(t.organizationId, t.cardId, t.createdAt),
    foreignKey({
      name: 'card_files_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    // MATCH SIMPLE: a null card_id (not attached yet) is not checked.
    foreignKey({
      name: 'card_files_card_fk',
      columns: [t.organizationId, t.cardId],
      foreignColumns: [cards.organizationId, cards.id],
    }).onDelete('cascade'),
  ],
);

/**
 * A narrow copy of each card's title, folded (crm_fold: lowercased, accents removed), with what the list's stats read (phase, phase entry, due
 * date, value), for the total and stats of `filters[title][$containsi]` (title-search.ts, docs/performance.md
 * "Fifth pass", "Scoped trigram keys"): a bitmap scan of this table's GIN index of scoped trigram keys, whose
 * candidates are decided on these narrow pages with a plain LIKE, where the cards' own trigram index rechecks every
 * match on the wide heap. Kept by triggers on `cards` inside the writing statement; no foreign key (the delete
 * trigger removes the rows, like the counts').
 * Fixed-width columns first: no alignment padding between them. The search's candidates come from the board's own
 * trigram keys (below), so a small board of a large organization reads only its own matches; the key leads with the
 * board for the row triggers' lookups and a board's deletion.
 */
export const cardTitleSearch = pgTable(
  'card_title_search',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    cardId: bigint('card_id', { mode: 'number' }).notNull(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    phaseId: bigint('phase_id', { mode: 'number' }),
    phaseEnteredAt: timestamp('phase_entered_at', { withTimezone: true, mode: 'date' }).notNull(),
    dueDate: timestamp('due_date', { withTimezone: true, mode: 'date' }),
    value: numeric('value', { precision: 14, scale: 2, mode: 'number' }).notNull(),
    /** crm_fold(cards.title) (0.1.0: lower(cards.title)). */
    title: text('title').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.boardId, t.cardId] }),
    // The title's trigrams hashed with the board (crm_trgm_keys, platform/db/search-fold.ts): a board's search reads
    // posting lists of its own keys only, not the board's and organization's whole lists (docs/performance.md
    // "Scoped trigram keys").
    index('card_title_search_keys_idx').using('gin', sql`crm_trgm_keys(${t.boardId}, ${t.title})`),
  ],
);

/**
 * Per-board card counts for the list's total and stats without reading the cards (docs/cards.md):
 * card count and value sum per phase (0 = none) and UTC due day ('infinity' = no due date). Maintained by
 * statement triggers on `cards` (counts.ts) that only ever INSERT into `card_count_deltas`, so concurrent card
 * writes never wait on a shared counter row; a reader folds the deltas of a board into `card_counts` once they
 * pile up. The true counts are always `card_counts + card_count_deltas`. No foreign keys: a cascaded delete
 * of a board or its cards writes deltas after the board row is gone; boards' delete removes both.
 */
const countColumns = () => ({
  boardId: bigint('board_id', { mode: 'number' }).notNull(),
  phaseId: bigint('phase_id', { mode: 'number' }).notNull(),
  dueDay: date('due_day', { mode: 'string' }).notNull(),
  cardCount: bigint('card_count', { mode: 'number' }).notNull(),
  valueSum: numeric('value_sum', { precision: 20, scale: 2, mode: 'number' }).notNull(),
});

export const cardCounts = pgTable(
  'card_counts',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    ...countColumns(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.boardId, t.phaseId, t.dueDay] })],
);

export const cardCountDeltas = pgTable(
  'card_count_deltas',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    ...countColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('card_count_deltas_org_board_idx').on(t.organizationId, t.boardId, t.phaseId),
  ],
);

/**
 * The board report's rollups (report-rollups.ts, docs/cards.md): card count and value sum per board, dimension
 * and UTC created day. `kind`: `p` phase (key = phase id, 0 = none), `a` assignee (key = membership id), `A`
 * cards with at least one assignee (key 0), `t` tag (key = tag id), `T` cards with at least one tag (key 0).
 * Maintained like the card counts: statement triggers on `cards`, `card_assignees` and `card_tags` only INSERT
 * grouped deltas; readers fold them. The true rollup is always `card_report_rollups + card_report_deltas`.
 */
const reportColumns = () => ({
  boardId: bigint('board_id', { mode: 'number' }).notNull(),
  kind: text('kind').notNull(),
  key: bigint('key', { mode: 'number' }).notNull(),
  day: date('day', { mode: 'string' }).notNull(),
  cardCount: bigint('card_count', { mode: 'number' }).notNull(),
  valueSum: numeric('value_sum', { precision: 20, scale: 2, mode: 'number' }).notNull(),
});

export const cardReportRollups = pgTable(
  'card_report_rollups',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    ...reportColumns(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.boardId, t.day, t.kind, t.key] })],
);

export const cardReportDeltas = pgTable(
  'card_report_deltas',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    ...reportColumns(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('card_report_deltas_org_board_idx').on(t.organizationId, t.boardId, t.day),
  ],
);

/**
 * Cards deleted by a statement, with what their links counted with (board, created day, value): a card's
 * DELETE cascades to its assignee and tag rows, whose statement triggers fire after the cards' own, when the
 * card row is gone; they read the card from here. Only read within the deleting statement; the maintenance
 * removes rows older than an hour (report-rollups.ts).
 */
export const cardReportTombstones = pgTable(
  'card_report_tombstones',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    cardId: bigint('card_id', { mode: 'number' }).notNull(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    value: numeric('value', { precision: 14, scale: 2, mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('card_report_tombstones_org_card_idx').on(t.organizationId, t.cardId)],
);
