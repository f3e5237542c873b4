import type { Tx } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import type { ListQueryInput } from '../../platform/http/list-query.js';
import { hasRole, type TenantContext } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';
import type { SavedQuery } from './schema.js';
import type { SAVED_FILTER_RESOURCES } from './table.js';

// Applying a saved filter to a list is what the lists (cards, contacts, tasks) use; it needs none of their query
// models, which only saving a filter does (service.ts), so the lists and this file do not import each other.

export type Resource = (typeof SAVED_FILTER_RESOURCES)[number];

/** Owners and admins see every board (DESIGN.md §6), so every organization filter. */
export const viewerOf = (ctx: TenantContext): repo.Viewer => ({
  membershipId: ctx.membershipId,
  allBoards: hasRole(ctx, 'admin'),
});

/**
 * `?savedFilter=<documentId>` on a list: the saved filters ANDed with the request's, the saved sort when the
 * request has none. A filter the caller cannot see, of another list or of another board is a 400 naming it.
 */
export async function withSavedFilter<Q extends ListQueryInput>(
  tx: Tx,
  ctx: TenantContext,
  resource: Resource,
  savedFilterId: string | undefined,
  query: Q,
  boardId?: number,
): Promise<Q> {
  if (!savedFilterId) return query;
  const bad = (message: string): never => {
    throw new AppError('ValidationError', `Invalid savedFilter: ${message}`, {
      errors: [{ path: ['savedFilter'], message, name: 'ValidationError' }],
    });
  };
  const row = await repo.findVisible(tx, ctx.orgId, viewerOf(ctx), savedFilterId);
  if (!row)
    return bad(`no saved filter ${savedFilterId} (GET /api/saved-filters?resource=${resource} lists yours)`);
  if (row.resource !== resource)
    return bad(`saved filter ${savedFilterId} filters ${row.resource}, not ${resource}`);
  if (boardId !== undefined && row.boardId !== boardId)
    return bad(`saved filter ${savedFilterId} belongs to another board (${row.boardDocumentId})`);
  const saved = row.query as SavedQuery;
  const filters =
    saved.filters && query.filters
      ? { $and: [saved.filters, query.filters] }
      : (saved.filters ?? query.filters);
  return { ...query, filters, sort: query.sort ?? saved.sort };
}
