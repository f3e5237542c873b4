import {
  bigint,
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import type { SegmentFilters } from './schema.js';

/** Saved contact segments: `filters` is the validated SegmentFilters document, compiled to SQL on read. */
export const segments = pgTable(
  'segments',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    description: text('description'),
    active: boolean('active').notNull().default(true),
    filters: jsonb('filters').$type<SegmentFilters>().notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('segments_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('segments_org_name_key').on(t.organizationId, t.name),
  ],
);

/**
 * `requiredSegments` / `excludedSegments` as rows, so "who references this segment" is an index scan
 * and a referenced segment cannot disappear under its dependents (the FK restricts the delete).
 */
export const segmentLinks = pgTable(
  'segment_links',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    segmentId: bigint('segment_id', { mode: 'number' }).notNull(),
    linkedSegmentId: bigint('linked_segment_id', { mode: 'number' }).notNull(),
    /** `required` (the contact must also match) or `excluded` (it must not). */
    kind: text('kind').notNull(),
    position: integer('position').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.segmentId, t.linkedSegmentId] }),
    index('segment_links_org_linked_idx').on(t.organizationId, t.linkedSegmentId),
    foreignKey({
      name: 'segment_links_segment_fk',
      columns: [t.organizationId, t.segmentId],
      foreignColumns: [segments.organizationId, segments.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'segment_links_linked_fk',
      columns: [t.organizationId, t.linkedSegmentId],
      foreignColumns: [segments.organizationId, segments.id],
    }).onDelete('restrict'),
  ],
);
