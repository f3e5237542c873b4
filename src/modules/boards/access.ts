import type { Database, Tx } from '../../platform/db/client.js';
import { AppError, notFound, validationError } from '../../platform/http/errors.js';
import { hasRole, type TenantContext } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';
import type { FieldOption, FieldType, StoredTransition } from './table.js';

/**
 * Board permissions (DESIGN.md §6), the one place that decides them; the cards area calls these too.
 * - see: org owner/admin, or the board's owner, members and editors;
 * - write card data: org owner/admin, or the board's owner or an editor, with at least the member role;
 * - configure (structure, settings, people): org owner/admin, or the board's owner with the member role.
 */
export interface BoardAccess {
  board: repo.BoardRow;
  /** Org owner or admin: sees every board and every card (no assignee narrowing). */
  isAdmin: boolean;
  isOwner: boolean;
  isEditor: boolean;
  canWrite: boolean;
  canConfigure: boolean;
}

/** 404 when the board does not exist in this organization or the caller may not see it. */
export async function loadBoardForRead(
  tx: Tx,
  ctx: TenantContext,
  boardDocumentId: string,
): Promise<BoardAccess> {
  return accessTo(tx, ctx, await repo.findBoard(tx, ctx.orgId, boardDocumentId));
}

/** loadBoardForRead's checks on a board row already read (undefined: not found). */
export async function accessTo(
  tx: Tx,
  ctx: TenantContext,
  board: repo.BoardRow | undefined,
): Promise<BoardAccess> {
  if (!board) throw notFound('Board');
  const isAdmin = hasRole(ctx, 'admin');
  const isOwner = board.ownerMembershipId === ctx.membershipId;
  const kinds = isAdmin
    ? new Set<string>()
    : await repo.membershipKinds(tx, ctx.orgId, board.id, ctx.membershipId);
  if (!isAdmin && !isOwner && kinds.size === 0) throw notFound('Board');
  const isEditor = kinds.has('editor');
  const memberRole = hasRole(ctx, 'member');
  return {
    board,
    isAdmin,
    isOwner,
    isEditor,
    canWrite: isAdmin || (memberRole && (isOwner || isEditor)),
    canConfigure: isAdmin || (memberRole && isOwner),
  };
}

/** For writing card data: 404 when invisible, 403 when visible but not writable. */
export async function loadBoardForWrite(
  tx: Tx,
  ctx: TenantContext,
  boardDocumentId: string,
): Promise<BoardAccess> {
  return requireWrite(ctx, await loadBoardForRead(tx, ctx, boardDocumentId));
}

/** loadBoardForWrite's check on an access already established. */
export function requireWrite(ctx: TenantContext, access: BoardAccess): BoardAccess {
  if (!access.canWrite) {
    throw new AppError(
      'ForbiddenError',
      'Writing to this board needs the editor or owner of the board, or an admin',
      {
        role: ctx.role,
      },
    );
  }
  return access;
}

/** For structure, settings and people changes: 404 when invisible, 403 unless admin or board owner. */
export async function loadBoardForConfigure(
  tx: Tx,
  ctx: TenantContext,
  boardDocumentId: string,
): Promise<BoardAccess> {
  const access = await loadBoardForRead(tx, ctx, boardDocumentId);
  if (!access.canConfigure) {
    throw new AppError('ForbiddenError', 'Configuring a board needs an admin or the owner of the board', {
      role: ctx.role,
    });
  }
  return access;
}

export interface FieldStructure {
  id: number;
  documentId: string;
  phaseId: number;
  label: string;
  slug: string;
  type: FieldType;
  order: number;
  required: boolean;
  placeholder: string | null;
  helpText: string | null;
  defaultValue: string | null;
  options: FieldOption[];
}

export interface TransitionStructure {
  phaseId: number;
  phaseDocumentId: string;
  allowed: boolean;
}

export interface PhaseStructure {
  id: number;
  documentId: string;
  name: string;
  slug: string;
  order: number;
  isPublic: boolean;
  description: string | null;
  maxTimeInPhaseHours: number | null;
  color: string | null;
  /** Only transitions to phases that still exist. A target not listed is allowed. */
  allowedTransitions: TransitionStructure[];
  fields: FieldStructure[];
}

export interface TagStructure {
  id: number;
  documentId: string;
  name: string;
  slug: string;
  color: string | null;
}

export interface BoardSettingsStructure {
  showValue: boolean;
  currency: string;
  wonPhaseId: number | null;
  lostPhaseId: number | null;
  restrictEditToAssignees: boolean;
  restrictViewToAssignees: boolean;
  enableProducts: boolean;
  autoUpdateCardValue: boolean;
  autoUpdateDueDateFromPhase: boolean;
}

export interface BoardStructure {
  board: repo.BoardRow;
  settings: BoardSettingsStructure;
  /** Ordered by `order`; `phases[0]` (order 0) is the entry form when there is one. */
  phases: PhaseStructure[];
  entryPhase: PhaseStructure | undefined;
  tags: TagStructure[];
  fieldsBySlug: Map<string, FieldStructure>;
  phasesById: Map<number, PhaseStructure>;
  /** The field conditions, when read with the structure (same statement): card writes then read none of their own. */
  conditions?: repo.ConditionRow[];
  /** Whether an active distribution queue was found with the structure (findBoardWithStructure); unread: undefined. */
  queued?: boolean;
}

export function toFieldStructure(f: repo.FieldRow): FieldStructure {
  return {
    id: f.id,
    documentId: f.documentId,
    phaseId: f.phaseId,
    label: f.label,
    slug: f.slug,
    type: f.type as FieldType,
    order: f.order,
    required: f.required,
    placeholder: f.placeholder,
    helpText: f.helpText,
    defaultValue: f.defaultValue,
    options: f.options ?? [],
  };
}

export function settingsOf(board: repo.BoardRow): BoardSettingsStructure {
  return {
    showValue: board.showValue,
    currency: board.currency,
    wonPhaseId: board.wonPhaseId,
    lostPhaseId: board.lostPhaseId,
    restrictEditToAssignees: board.restrictEditToAssignees,
    restrictViewToAssignees: board.restrictViewToAssignees,
    enableProducts: board.enableProducts,
    autoUpdateCardValue: board.autoUpdateCardValue,
    autoUpdateDueDateFromPhase: board.autoUpdateDueDateFromPhase,
  };
}

/** Groups phase, field and tag rows of several boards into structures (one listStructure query). */
export function assembleStructure(
  board: repo.BoardRow,
  phaseRows: repo.PhaseRow[],
  fieldRows: repo.FieldRow[],
  tagRows: repo.TagRow[],
): BoardStructure {
  const own = phaseRows.filter((p) => p.boardId === board.id);
  const byDocumentId = new Map(own.map((p) => [p.documentId, p.id]));
  const phases: PhaseStructure[] = own.map((p) => ({
    id: p.id,
    documentId: p.documentId,
    name: p.name,
    slug: p.slug,
    order: p.order,
    isPublic: p.order === 0 || p.isPublic,
    description: p.description,
    maxTimeInPhaseHours: p.maxTimeInPhaseHours,
    color: p.color,
    allowedTransitions: (p.allowedTransitions as StoredTransition[])
      .filter((t) => byDocumentId.has(t.phase))
      .map((t) => ({ phaseId: byDocumentId.get(t.phase)!, phaseDocumentId: t.phase, allowed: t.allowed })),
    fields: [],
  }));
  const phasesById = new Map(phases.map((p) => [p.id, p]));
  const fieldsBySlug = new Map<string, FieldStructure>();
  for (const f of fieldRows) {
    if (f.boardId !== board.id) continue;
    const field = toFieldStructure(f);
    phasesById.get(f.phaseId)?.fields.push(field);
    fieldsBySlug.set(field.slug, field);
  }
  const tags = tagRows
    .filter((t) => t.boardId === board.id)
    .map((t) => ({ id: t.id, documentId: t.documentId, name: t.name, slug: t.slug, color: t.color }));
  return {
    board,
    settings: settingsOf(board),
    phases,
    entryPhase: phases.find((p) => p.order === 0),
    tags,
    fieldsBySlug,
    phasesById,
  };
}

/** Everything the cards area needs to validate and move cards: phases with fields and transitions, tags, settings. */
export async function loadBoardStructure(tx: Tx, orgId: number, boardId: number): Promise<BoardStructure> {
  const board = await repo.findBoardById(tx, orgId, boardId);
  if (!board) throw notFound('Board');
  const rows = await repo.listStructure(tx, orgId, [boardId]);
  return assembleStructure(board, rows.phases, rows.fields, rows.tags);
}

/**
 * Public form routes (no token, no tenant header): finds the board's organization outside RLS, then runs
 * `fn` in a tenant transaction of that organization. Unknown or inactive boards are a 404.
 */
export async function publicBoardTransaction<T>(
  db: Database,
  boardDocumentId: string,
  fn: (tx: Tx, orgId: number, board: repo.BoardRow) => Promise<T>,
): Promise<T> {
  const orgId = await repo.findBoardOrganization(db.system, boardDocumentId);
  if (orgId === undefined) throw notFound('Board');
  return db.tenantTransaction(orgId, async (tx) => {
    const board = await repo.findBoard(tx, orgId, boardDocumentId);
    if (!board?.active) throw notFound('Board');
    return fn(tx, orgId, board);
  });
}

/** A board named in the body that the caller cannot see is a 400 on `board` (the route itself exists). */
export const unknownBoard = (ref: string) => (err: unknown) => {
  if (err instanceof AppError && err.errorName === 'NotFoundError')
    throw validationError(`No board ${ref} in this organization`, [
      { path: ['board'], message: `no board ${ref} in this organization`, name: 'ValidationError' },
    ]);
  throw err;
};
