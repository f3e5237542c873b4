import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { memberships } from '../organizations/table.js';

export const BOARD_TYPES = ['kanban', 'chat', 'hybrid'] as const;
export const BOARD_MEMBER_KINDS = ['member', 'editor'] as const;
/**
 * A board's public form asks this consent with a checkbox: ticked, the submitter's contact is granted `purpose` on
 * each of `channels`, with `text` (as the form showed it), the form and the IP as proof.
 */
export interface FormConsent {
  text: string;
  channels: ('whatsapp' | 'email' | 'sms')[];
  purpose: 'marketing' | 'transactional';
}

export const FIELD_TYPES = [
  'text',
  'textarea',
  'richtext',
  'email',
  'number',
  'date',
  'datetime',
  'select',
  'multiselect',
  'radio',
  'switch',
  'file',
  'url',
  'phone',
  'card_link',
  'hidden',
  'statement',
  'time',
  'currency',
  'document',
  'checkbox',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const CONDITION_SCOPES = ['phase', 'board'] as const;
export const CONDITION_OPERATORS = [
  'eq',
  'ne',
  'contains',
  'notContains',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'notIn',
  'empty',
  'notEmpty',
] as const;
export const DEFAULT_TASK_STATUSES = ['pending', 'in-progress', 'completed', 'cancelled'];

/** A check-constraint expression: `column` is one of `values` (constants of this codebase, never input). */
export const inList = (column: string, values: readonly string[]) =>
  sql.raw(`${column} in (${values.map((v) => `'${v}'`).join(', ')})`);

/** A stored allowed transition: the target phase by documentId (stable across renames and reorders). */
export interface StoredTransition {
  phase: string;
  allowed: boolean;
}
export type FieldOption = string | { value: string; label: string };
export interface ConditionExpression {
  fieldSlug: string;
  operator: (typeof CONDITION_OPERATORS)[number];
  value?: unknown;
}
export interface ConditionGroup {
  operator: 'AND';
  expressions: ConditionExpression[];
}
export interface ConditionAction {
  type: 'show' | 'hide';
  targetFieldSlugs: string[];
}

/**
 * Numbers a board's structure (its phases, fields, tags and field conditions): every change of those rows
 * gives the board a new number (structure-version.ts), never reused, not even after a rollback, so a number
 * read with a structure names that structure for good (the structure cache of findBoardWithStructure).
 */
export const boardStructureVersions = pgSequence('board_structure_versions');

export const boards = pgTable(
  'boards',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    active: boolean('active').notNull().default(true),
    boardType: text('board_type').notNull().default('kanban'),
    icon: text('icon'),
    color: text('color'),
    template: text('template'),
    taskStatuses: text('task_statuses')
      .array()
      .notNull()
      .default(sql`ARRAY['pending','in-progress','completed','cancelled']::text[]`),
    // BoardSettings, one column each. Won/lost phases carry no foreign key: a composite SET NULL would
    // null organization_id too, so the service clears them when the phase goes (same transaction).
    showValue: boolean('show_value').notNull().default(false),
    currency: text('currency').notNull().default('USD'),
    wonPhaseId: bigint('won_phase_id', { mode: 'number' }),
    lostPhaseId: bigint('lost_phase_id', { mode: 'number' }),
    restrictEditToAssignees: boolean('restrict_edit_to_assignees').notNull().default(false),
    restrictViewToAssignees: boolean('restrict_view_to_assignees').notNull().default(false),
    enableProducts: boolean('enable_products').notNull().default(false),
    autoUpdateCardValue: boolean('auto_update_card_value').notNull().default(false),
    autoUpdateDueDateFromPhase: boolean('auto_update_due_date_from_phase').notNull().default(false),
    /** The public form's consent checkbox (docs/lgpd.md, "Consent sources"); null: the form asks none. */
    formConsent: jsonb('form_consent').$type<FormConsent>(),
    // No foreign key for the same reason: a removed membership reads back as `owner: null`.
    ownerMembershipId: bigint('owner_membership_id', { mode: 'number' }),
    structureVersion: bigint('structure_version', { mode: 'number' })
      .notNull()
      .default(sql`nextval('board_structure_versions')`),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('boards_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('boards_org_slug_key').on(t.organizationId, t.slug),
    // The one index not led by the tenant: the public form (no tenant header) finds a board's
    // organization by its documentId before anything else can run (src/modules/boards/public.ts).
    // Not unique: under Citus a unique index must include the distribution column.
    index('boards_document_id_idx').on(t.documentId),
    check('boards_board_type_check', inList('board_type', BOARD_TYPES)),
  ],
);

/** Who sees (`member`) and who edits (`editor`) a board, besides its owner and the org admins. */
export const boardMembers = pgTable(
  'board_members',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
    kind: text('kind').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.boardId, t.kind, t.membershipId] }),
    index('board_members_org_membership_idx').on(t.organizationId, t.membershipId),
    foreignKey({
      name: 'board_members_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'board_members_membership_fk',
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
    check('board_members_kind_check', inList('kind', BOARD_MEMBER_KINDS)),
  ],
);

export const phases = pgTable(
  'phases',
  {
    ...tenantColumns(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    order: integer('order').notNull(),
    isPublic: boolean('is_public').notNull().default(false),
    description: text('description'),
    maxTimeInPhaseHours: integer('max_time_in_phase_hours'),
    /** Shown on the phase's Kanban column; null: none. */
    color: text('color'),
    allowedTransitions: jsonb('allowed_transitions').$type<StoredTransition[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('phases_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('phases_org_board_slug_key').on(t.organizationId, t.boardId, t.slug),
    index('phases_org_board_order_idx').on(t.organizationId, t.boardId, t.order),
    foreignKey({
      name: 'phases_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    check('phases_order_check', sql`"order" >= 0`),
    check(
      'phases_max_time_check',
      sql`max_time_in_phase_hours is null or max_time_in_phase_hours between 1 and 8760`,
    ),
    check('phases_color_check', sql`color is null or color ~ '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$'`),
  ],
);

export const fieldDefinitions = pgTable(
  'field_definitions',
  {
    ...tenantColumns(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    phaseId: bigint('phase_id', { mode: 'number' }).notNull(),
    label: text('label').notNull(),
    slug: text('slug').notNull(),
    type: text('type').notNull(),
    order: integer('order').notNull().default(0),
    required: boolean('required').notNull().default(false),
    placeholder: text('placeholder'),
    helpText: text('help_text'),
    defaultValue: text('default_value'),
    options: jsonb('options').$type<FieldOption[]>(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('field_definitions_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('field_definitions_org_board_slug_key').on(t.organizationId, t.boardId, t.slug),
    index('field_definitions_org_phase_idx').on(t.organizationId, t.phaseId, t.order),
    foreignKey({
      name: 'field_definitions_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'field_definitions_phase_fk',
      columns: [t.organizationId, t.phaseId],
      foreignColumns: [phases.organizationId, phases.id],
    }).onDelete('cascade'),
    check('field_definitions_type_check', inList('type', FIELD_TYPES)),
  ],
);

export const fieldConditions = pgTable(
  'field_conditions',
  {
    ...tenantColumns(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    phaseId: bigint('phase_id', { mode: 'number' }),
    name: text('name').notNull(),
    scope: text('scope').notNull().default('phase'),
    order: integer('order').notNull().default(0),
    enabled: boolean('enabled').notNull().default(true),
    criteria: jsonb('criteria').$type<ConditionGroup[]>().notNull().default([]),
    actionsWhenTrue: jsonb('actions_when_true').$type<ConditionAction[]>().notNull().default([]),
    actionsWhenFalse: jsonb('actions_when_false').$type<ConditionAction[]>().notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('field_conditions_org_document_id_key').on(t.organizationId, t.documentId),
    index('field_conditions_org_board_idx').on(t.organizationId, t.boardId, t.order),
    foreignKey({
      name: 'field_conditions_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'field_conditions_phase_fk',
      columns: [t.organizationId, t.phaseId],
      foreignColumns: [phases.organizationId, phases.id],
    }).onDelete('cascade'),
    check('field_conditions_scope_check', inList('scope', CONDITION_SCOPES)),
  ],
);

export const tags = pgTable(
  'tags',
  {
    ...tenantColumns(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    color: text('color'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('tags_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('tags_org_board_slug_key').on(t.organizationId, t.boardId, t.slug),
    foreignKey({
      name: 'tags_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    check('tags_color_check', sql`color is null or color ~ '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$'`),
  ],
);
