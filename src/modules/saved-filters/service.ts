import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { AppError, type FieldError, notFound } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { loadBoardForRead, loadBoardStructure, unknownBoard } from '../boards/index.js';
import { cardModelFor } from '../cards/index.js';
import { contactModel } from '../contacts/index.js';
import { taskModel } from '../tasks/index.js';
import { type Resource, viewerOf } from './apply.js';
import * as repo from './repo.js';
import type { SavedFilter, SavedFilterCreateInput, SavedFilterUpdateInput, SavedQuery } from './schema.js';

function toSavedFilter(row: repo.SavedFilterRow): SavedFilter {
  return {
    documentId: row.documentId,
    name: row.name,
    resource: row.resource as Resource,
    board:
      row.boardDocumentId && row.boardName ? { documentId: row.boardDocumentId, name: row.boardName } : null,
    query: row.query as SavedQuery,
    visibility: row.visibility as SavedFilter['visibility'],
    owner: row.ownerDocumentId ? { documentId: row.ownerDocumentId } : null,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

/**
 * Compiles the query against the list it filters, exactly as that list route would: an unknown field, a bad
 * operator or a field the board does not have is the list's own 400, its paths under `query`.
 */
function validateQuery(model: Parameters<typeof compileListQuery>[0], query: SavedQuery) {
  try {
    compileListQuery(model, query);
  } catch (err) {
    if (!(err instanceof AppError) || err.errorName !== 'ValidationError') throw err;
    const errors = ((err.details.errors as FieldError[] | undefined) ?? []).map((e) => ({
      ...e,
      path: ['query', ...e.path],
    }));
    throw new AppError('ValidationError', err.message, { ...err.details, errors });
  }
}

async function modelFor(tx: Tx, ctx: TenantContext, resource: Resource, boardId: number | null) {
  if (resource === 'contacts') return contactModel;
  if (resource === 'tasks') return taskModel;
  // Cards: the board's fields decide what the query may name.
  const board = await loadBoardStructure(tx, ctx.orgId, boardId as number);
  return cardModelFor(board);
}

/** Organization filters are the admins'; a private one its author's. */
function requireEditable(ctx: TenantContext, row: repo.SavedFilterRow) {
  if (row.visibility === 'organization') requireRole(ctx, 'admin');
  else if (row.ownerMembershipId !== ctx.membershipId) throw notFound('Saved filter');
}

export async function listSavedFilters(ctx: TenantContext, query: ListQueryInput & { resource?: Resource }) {
  const { resource, ...listQuery } = query;
  const q = compileListQuery(repo.savedFilterModel, listQuery, 'name:asc');
  const { rows, total } = await ctx.transaction((tx) =>
    repo.listVisible(tx, ctx.orgId, viewerOf(ctx), q, resource),
  );
  return listPage(rows.map(toSavedFilter), total, q);
}

export async function getSavedFilter(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'saved_filters');
  const row = await ctx.transaction((tx) => repo.findVisible(tx, ctx.orgId, viewerOf(ctx), documentId));
  if (!row) throw notFound('Saved filter');
  return toSavedFilter(row);
}

export async function createSavedFilter(ctx: TenantContext, input: SavedFilterCreateInput) {
  requireFeature(ctx, 'saved_filters');
  const visibility = input.visibility ?? 'private';
  requireRole(ctx, visibility === 'organization' ? 'admin' : 'member');
  return ctx.transaction(async (tx) => {
    let boardId: number | null = null;
    if (input.resource === 'cards') {
      if (!input.board)
        throw new AppError('ValidationError', 'A cards filter names its board (data.board)', {
          errors: [{ path: ['board'], message: 'required for resource cards', name: 'ValidationError' }],
        });
      boardId = (await loadBoardForRead(tx, ctx, input.board).catch(unknownBoard(input.board))).board.id;
    } else if (input.board) {
      throw new AppError('ValidationError', `A ${input.resource} filter has no board`, {
        errors: [{ path: ['board'], message: 'only for resource cards', name: 'ValidationError' }],
      });
    }
    validateQuery(await modelFor(tx, ctx, input.resource, boardId), input.query);
    const documentId = await repo.insertSavedFilter(tx, ctx.orgId, {
      name: input.name,
      resource: input.resource,
      boardId,
      query: input.query,
      visibility,
      ownerMembershipId: ctx.membershipId,
    });
    await audit(tx, ctx, 'saved_filter.created', documentId);
    return toSavedFilter(
      (await repo.findVisible(tx, ctx.orgId, viewerOf(ctx), documentId)) as repo.SavedFilterRow,
    );
  });
}

export async function updateSavedFilter(
  ctx: TenantContext,
  documentId: string,
  input: SavedFilterUpdateInput,
) {
  requireFeature(ctx, 'saved_filters');
  return ctx.transaction(async (tx) => {
    const row = await repo.findVisible(tx, ctx.orgId, viewerOf(ctx), documentId);
    if (!row) throw notFound('Saved filter');
    requireEditable(ctx, row);
    if (input.visibility === 'organization') requireRole(ctx, 'admin');
    if (input.query)
      validateQuery(await modelFor(tx, ctx, row.resource as Resource, row.boardId), input.query);
    await repo.updateSavedFilter(tx, ctx.orgId, row.id, input);
    await audit(tx, ctx, 'saved_filter.updated', documentId);
    return toSavedFilter(
      (await repo.findVisible(tx, ctx.orgId, viewerOf(ctx), documentId)) as repo.SavedFilterRow,
    );
  });
}

export async function deleteSavedFilter(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'saved_filters');
  return ctx.transaction(async (tx) => {
    const row = await repo.findVisible(tx, ctx.orgId, viewerOf(ctx), documentId);
    if (!row) throw notFound('Saved filter');
    requireEditable(ctx, row);
    await repo.deleteSavedFilter(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'saved_filter.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}
