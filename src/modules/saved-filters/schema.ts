import { z } from 'zod';
import { listQueryShape } from '../../platform/http/list-query.js';
import { SAVED_FILTER_RESOURCES, SAVED_FILTER_VISIBILITIES } from './table.js';

/** What a saved filter keeps of a list query: its filters and, optionally, its sort. */
export const savedQuery = z.strictObject({
  filters: listQueryShape.filters,
  sort: listQueryShape.sort,
});
export type SavedQuery = z.infer<typeof savedQuery>;

const shape = {
  name: z.string().trim().min(1).max(120),
  resource: z.enum(SAVED_FILTER_RESOURCES).describe('the list it filters'),
  board: z
    .string()
    .min(1)
    .max(64)
    .nullable()
    .describe('board documentId: required for cards (its fields decide what the query may name), else null'),
  query: savedQuery.describe('`{ filters, sort }` exactly as the list route takes them in its query string'),
  visibility: z
    .enum(SAVED_FILTER_VISIBILITIES)
    .describe('private: only its author; organization: every member (made and changed by admins)'),
};

export const savedFilterCreateInput = z.strictObject({
  ...shape,
  board: shape.board.optional(),
  visibility: shape.visibility.optional().describe('default private'),
});
export type SavedFilterCreateInput = z.infer<typeof savedFilterCreateInput>;

export const savedFilterUpdateInput = z
  .strictObject({ name: shape.name, query: shape.query, visibility: shape.visibility })
  .partial()
  .describe('resource and board are fixed at creation');
export type SavedFilterUpdateInput = z.infer<typeof savedFilterUpdateInput>;

export const savedFilter = z
  .object({
    documentId: z.string(),
    name: z.string(),
    resource: z.enum(SAVED_FILTER_RESOURCES),
    board: z.object({ documentId: z.string(), name: z.string() }).nullable(),
    query: z.object({ filters: z.record(z.string(), z.unknown()).optional(), sort: z.unknown().optional() }),
    visibility: z.enum(SAVED_FILTER_VISIBILITIES),
    owner: z.object({ documentId: z.string() }).nullable().describe("the author's membership"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'SavedFilter' });
export type SavedFilter = z.infer<typeof savedFilter>;

export const savedFilterListQuery = z.strictObject({
  ...listQueryShape,
  resource: z.enum(SAVED_FILTER_RESOURCES).optional().describe('only the filters of this list'),
});

/** The parameter every filterable list takes: a saved filter ANDed with the request's own filters. */
export const savedFilterParam = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe(
    'documentId of a saved filter of this list (GET /saved-filters): its filters are ANDed with `filters`; its sort applies when `sort` is absent',
  );
