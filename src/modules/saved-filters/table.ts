import {
  bigint,
  check,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { boards, inList } from '../boards/table.js';

export const SAVED_FILTER_RESOURCES = ['cards', 'contacts', 'tasks'] as const;
export const SAVED_FILTER_VISIBILITIES = ['private', 'organization'] as const;

/** A named list query (filters and sort) of cards (of one board), contacts or tasks (DESIGN.md §11). */
export const savedFilters = pgTable(
  'saved_filters',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    resource: text('resource').notNull(),
    /** The board of a cards filter (its dynamic fields decide what the query may name); null otherwise. */
    boardId: bigint('board_id', { mode: 'number' }),
    /** `{ filters?, sort? }` as the list routes take them, validated by the list-query compiler on write. */
    query: jsonb('query').notNull(),
    visibility: text('visibility').notNull(),
    /**
     * Who made it (no foreign key: an organization filter outlives its author's membership; a private one is then
     * seen by nobody, as the author's other private things).
     */
    ownerMembershipId: bigint('owner_membership_id', { mode: 'number' }).notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('saved_filters_org_document_id_key').on(t.organizationId, t.documentId),
    index('saved_filters_org_resource_idx').on(t.organizationId, t.resource, t.name),
    // A board's filters go with it.
    foreignKey({
      name: 'saved_filters_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
    check('saved_filters_resource_check', inList('resource', SAVED_FILTER_RESOURCES)),
    check('saved_filters_visibility_check', inList('visibility', SAVED_FILTER_VISIBILITIES)),
  ],
);
