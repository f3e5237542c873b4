import type { Config } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import type { Database, Tx } from '../../platform/db/client.js';
import { AppError, type FieldError, onUnique, validationError } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { slugify } from '../../platform/slugs.js';
import { hasRole, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipIdsByDocumentIds, membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import { deleteBoardCounts, deleteBoardFiles, deleteBoardRollups, removingFiles } from '../cards/index.js';
import {
  assembleStructure,
  loadBoardForConfigure,
  loadBoardForRead,
  loadBoardStructure,
  publicBoardTransaction,
} from './access.js';
import { presentBoard } from './present.js';
import * as repo from './repo.js';
import type { BoardCreateInput, BoardSettingsInput, BoardUpdateInput, NestedPhaseInput } from './schema.js';
import {
  allocateSlug,
  chooseSlug,
  conditionSlugs,
  fieldDefinitionErrors,
  findPhaseRef,
  type PageQuery,
  type Path,
  pageOf,
  resolveTransitions,
} from './structure.js';
import { BOARD_TEMPLATES, type BoardTemplate, findTemplate } from './templates.js';

/** Full Board objects for board rows: a fixed number of queries, whatever the number of boards. */
async function presentBoards(tx: Tx, orgId: number, rows: repo.BoardRow[]) {
  const ids = rows.map((r) => r.id);
  const structure = await repo.listStructure(tx, orgId, ids);
  const people = await repo.listBoardMembers(tx, orgId, ids);
  const membershipIds = [
    ...new Set([
      ...people.map((p) => p.membershipId),
      ...rows.flatMap((r) => (r.ownerMembershipId === null ? [] : [r.ownerMembershipId])),
    ]),
  ];
  const refs = await membershipRefsByIds(tx, orgId, membershipIds);
  return rows.map((b) =>
    presentBoard(assembleStructure(b, structure.phases, structure.fields, structure.tags), people, refs),
  );
}

export async function listBoards(ctx: TenantContext, query: ListQueryInput) {
  const q = compileListQuery(repo.boardModel, query, 'createdAt:asc');
  return ctx.transaction(async (tx) => {
    // Non-admins list only the boards they own, are members or editors of (DESIGN.md §6).
    const visibility = hasRole(ctx, 'admin') ? undefined : repo.visibleTo(ctx.membershipId);
    const { rows, total } = await repo.listBoards(tx, ctx.orgId, q, visibility);
    return listPage(await presentBoards(tx, ctx.orgId, rows), total, q);
  });
}

export async function getBoard(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => {
    const { board } = await loadBoardForRead(tx, ctx, documentId);
    return (await presentBoards(tx, ctx.orgId, [board]))[0];
  });
}

/** Membership documentIds → internal ids; unknown ones are a 400 naming their position. */
async function resolveMemberships(tx: Tx, orgId: number, documentIds: string[], path: (i: number) => Path) {
  const { ids, missing } = await membershipIdsByDocumentIds(tx, orgId, documentIds);
  if (missing.length) {
    throw validationError(
      'Unknown memberships',
      documentIds.flatMap((d, i) =>
        missing.includes(d) ? [{ path: path(i), message: `no membership ${d} in this organization` }] : [],
      ),
    );
  }
  return documentIds.map((d) => ids.get(d)!);
}

async function resolveOwner(tx: Tx, orgId: number, owner: string | null) {
  if (owner === null) return null;
  return (await resolveMemberships(tx, orgId, [owner], () => ['owner']))[0];
}

const listPath = (key: string) => (i: number) => [key, i];

/** won/lost phases are written as documentId or slug of a phase of the board. */
function resolveSettingsPhases(
  settings: BoardSettingsInput,
  phases: { id: number; documentId: string; slug: string }[],
) {
  const errors: FieldError[] = [];
  const pick = (key: 'wonPhase' | 'lostPhase') => {
    const ref = settings[key];
    if (ref === undefined) return undefined;
    if (ref === null) return null;
    const hit = findPhaseRef(phases, ref);
    if (!hit) errors.push({ path: ['boardSettings', key], message: `no phase ${ref} on this board` });
    return hit?.id ?? null;
  };
  const wonPhaseId = pick('wonPhase');
  const lostPhaseId = pick('lostPhase');
  if (errors.length) throw validationError('Invalid boardSettings', errors);
  const { wonPhase: _w, lostPhase: _l, ...flags } = settings;
  return { ...flags, wonPhaseId, lostPhaseId };
}

function templatePhases(t: BoardTemplate): NestedPhaseInput[] {
  return t.phases.map((p) => ({
    name: p.name,
    slug: p.slug,
    order: p.order,
    isPublic: p.isPublic,
    description: p.description,
    maxTimeInPhaseHours: p.maxTimeInPhaseHours,
    color: p.color,
    allowedTransitions: p.allowedTransitions,
    fields: p.fields.map((f) => ({ ...f })),
  }));
}

/** Checks nested phases and fields before anything is written; returns them in their final order. */
function planPhases(list: NestedPhaseInput[]) {
  const errors: FieldError[] = [];
  const sorted = list
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.order ?? a.i) - (b.p.order ?? b.i) || a.i - b.i);
  if (sorted[0]?.p.isPublic === false) {
    errors.push({
      path: ['phases', sorted[0].i, 'isPublic'],
      message: 'the entry phase (order 0) is always public',
    });
  }
  for (const { p, i } of sorted) {
    for (const [j, f] of (p.fields ?? []).entries())
      errors.push(...fieldDefinitionErrors(f, ['phases', i, 'fields', j]));
  }
  if (errors.length) throw validationError('Invalid phases', errors);
  return sorted;
}

async function insertNestedPhases(tx: Tx, orgId: number, boardId: number, list: NestedPhaseInput[]) {
  const planned = planPhases(list);
  const phaseSlugs = new Set<string>();
  const fieldSlugs = new Set<string>();
  const created: (repo.PhaseRow & { input: NestedPhaseInput; index: number })[] = [];
  for (const [order, { p, i }] of planned.entries()) {
    const slug = chooseSlug(phaseSlugs, p.slug, p.name, ['phases', i, 'slug']);
    phaseSlugs.add(slug);
    const row = await repo.insertPhase(tx, orgId, boardId, {
      name: p.name,
      slug,
      order,
      isPublic: order === 0 || (p.isPublic ?? false),
      description: p.description ?? null,
      maxTimeInPhaseHours: p.maxTimeInPhaseHours ?? null,
      color: p.color ?? null,
      allowedTransitions: [],
    });
    created.push({ ...row, input: p, index: i });
    for (const [j, f] of (p.fields ?? []).entries()) {
      const fieldSlug = chooseSlug(fieldSlugs, f.slug, f.label, ['phases', i, 'fields', j, 'slug']);
      fieldSlugs.add(fieldSlug);
      await repo.insertField(tx, orgId, boardId, {
        phaseId: row.id,
        label: f.label,
        slug: fieldSlug,
        type: f.type,
        order: f.order ?? j,
        required: f.required ?? false,
        placeholder: f.placeholder ?? null,
        helpText: f.helpText ?? null,
        defaultValue: f.defaultValue ?? null,
        options: f.options?.length ? f.options : null,
      });
    }
  }
  // Transitions name phases of the same body, so they are resolved once every phase exists.
  for (const c of created) {
    if (!c.input.allowedTransitions?.length) continue;
    const transitions = resolveTransitions(c.input.allowedTransitions, created, c, [
      'phases',
      c.index,
      'allowedTransitions',
    ]);
    await repo.updatePhase(tx, orgId, c.id, { allowedTransitions: transitions });
  }
  return created;
}

/**
 * An explicit slug that is taken is a 400. A generated one must not lose a race with a concurrent create
 * of the same name: allocation holds a transaction-scoped lock on (organization, base slug).
 */
async function insertBoardWithSlug(
  tx: Tx,
  orgId: number,
  explicit: string | undefined,
  name: string,
  values: Omit<Parameters<typeof repo.insertBoard>[2], 'slug'>,
) {
  let slug = explicit;
  if (slug === undefined) {
    const base = slugify(name);
    await repo.lockBoardSlug(tx, orgId, base);
    slug = allocateSlug(await repo.boardSlugsLike(tx, orgId, base), base);
  }
  return repo
    .insertBoard(tx, orgId, { ...values, slug })
    .catch(onUnique('slug', `The slug ${slug} is taken by another board`));
}

export async function createBoard(ctx: TenantContext, input: BoardCreateInput) {
  requireRole(ctx, 'admin');
  const template = input.template === undefined ? undefined : findTemplate(input.template);
  if (input.template !== undefined && !template) {
    throw validationError(`Unknown board template ${input.template}`, [
      { path: ['template'], message: `expected one of: ${BOARD_TEMPLATES.map((t) => t.id).join(', ')}` },
    ]);
  }
  // Every key of the body overrides the template's; the template's won/lost phases only apply to its phases.
  const fromTemplate: BoardSettingsInput = template
    ? {
        ...template.boardSettings,
        ...(input.phases ? { wonPhase: undefined, lostPhase: undefined } : {}),
      }
    : {};
  const settings = { ...fromTemplate, ...input.boardSettings };
  const phasesIn = input.phases ?? (template ? templatePhases(template) : []);
  const tagsIn = input.tags ?? template?.tags ?? [];
  return ctx.transaction(async (tx) => {
    const ownerId =
      input.owner === undefined ? ctx.membershipId : await resolveOwner(tx, ctx.orgId, input.owner);
    const members = await resolveMemberships(tx, ctx.orgId, input.members ?? [], listPath('members'));
    const editors = await resolveMemberships(tx, ctx.orgId, input.editors ?? [], listPath('editors'));
    const { wonPhase: _w, lostPhase: _l, ...flags } = settings;
    const board = await insertBoardWithSlug(tx, ctx.orgId, input.slug, input.name, {
      name: input.name,
      active: input.active ?? true,
      boardType: input.boardType ?? template?.boardType ?? 'kanban',
      icon: input.icon === undefined ? (template?.icon ?? null) : input.icon,
      color: input.color === undefined ? (template?.color ?? null) : input.color,
      template: template?.id ?? null,
      taskStatuses: input.taskStatuses ?? template?.taskStatuses,
      ...flags,
      ownerMembershipId: ownerId,
    });
    await repo.replaceBoardMembers(tx, ctx.orgId, board.id, 'member', members);
    await repo.replaceBoardMembers(tx, ctx.orgId, board.id, 'editor', editors);
    const phases = await insertNestedPhases(tx, ctx.orgId, board.id, phasesIn);
    const tagSlugs = new Set<string>();
    for (const [i, t] of tagsIn.entries()) {
      const tagSlug = chooseSlug(tagSlugs, t.slug, t.name, ['tags', i, 'slug']);
      tagSlugs.add(tagSlug);
      await repo.insertTag(tx, ctx.orgId, board.id, { name: t.name, slug: tagSlug, color: t.color ?? null });
    }
    const { wonPhaseId, lostPhaseId } = resolveSettingsPhases(settings, phases);
    const row =
      wonPhaseId || lostPhaseId
        ? await repo.updateBoard(tx, ctx.orgId, board.id, { wonPhaseId, lostPhaseId })
        : board;
    await audit(tx, ctx, 'board.created', board.documentId, { name: board.name, template: board.template });
    return (await presentBoards(tx, ctx.orgId, [row]))[0];
  });
}

export async function updateBoard(ctx: TenantContext, documentId: string, input: BoardUpdateInput) {
  return ctx.transaction(async (tx) => {
    const { board } = await loadBoardForConfigure(tx, ctx, documentId);
    const phases = await repo.listPhases(tx, ctx.orgId, [board.id]);
    const settings = resolveSettingsPhases(input.boardSettings ?? {}, phases);
    const ownerId = input.owner === undefined ? undefined : await resolveOwner(tx, ctx.orgId, input.owner);
    const members =
      input.members && (await resolveMemberships(tx, ctx.orgId, input.members, listPath('members')));
    const editors =
      input.editors && (await resolveMemberships(tx, ctx.orgId, input.editors, listPath('editors')));
    const row = await repo
      .updateBoard(tx, ctx.orgId, board.id, {
        name: input.name,
        slug: input.slug,
        active: input.active,
        boardType: input.boardType,
        icon: input.icon,
        color: input.color,
        taskStatuses: input.taskStatuses,
        ...settings,
        ownerMembershipId: ownerId,
      })
      .catch(onUnique('slug', `The slug ${input.slug} is taken by another board`));
    if (members) await repo.replaceBoardMembers(tx, ctx.orgId, board.id, 'member', members);
    if (editors) await repo.replaceBoardMembers(tx, ctx.orgId, board.id, 'editor', editors);
    return (await presentBoards(tx, ctx.orgId, [row]))[0];
  });
}

/**
 * Deleting a board is an org-admin action; everything under it goes in the same transaction, and its
 * uploaded files from disk once that committed (cards/files.ts).
 */
export async function deleteBoard(ctx: TenantContext, config: Config, documentId: string) {
  return removingFiles(config, (doomed) =>
    ctx.transaction(async (tx) => {
      const { board } = await loadBoardForRead(tx, ctx, documentId);
      requireRole(ctx, 'admin');
      doomed.push(...(await deleteBoardFiles(tx, ctx.orgId, board.id)));
      await repo.deleteBoard(tx, ctx.orgId, board.id);
      await deleteBoardCounts(tx, ctx.orgId, board.id);
      await deleteBoardRollups(tx, ctx.orgId, board.id);
      await audit(tx, ctx, 'board.deleted', board.documentId, { name: board.name, slug: board.slug });
      return { documentId: board.documentId, deleted: true as const };
    }),
  );
}

export const listTemplates = (query: PageQuery & { locale?: BoardTemplate['locale'] }) =>
  pageOf(
    BOARD_TEMPLATES.filter((t) => query.locale === undefined || t.locale === query.locale),
    query,
  );

export function getTemplate(id: string) {
  const t = findTemplate(id);
  if (!t) throw new AppError('NotFoundError', `No board template ${id}`);
  return t;
}

/**
 * The entry form of a board for anonymous clients: the entry phase's fields and the enabled conditions
 * that only name entry-form fields. Nothing else of the board (people, other phases, settings) leaves.
 */
export async function getPublicForm(db: Database, boardDocumentId: string) {
  return publicBoardTransaction(db, boardDocumentId, async (tx, orgId, board) => {
    const s = await loadBoardStructure(tx, orgId, board.id);
    const entry = s.entryPhase;
    if (!entry) throw new AppError('NotFoundError', 'This board has no entry form');
    const slugs = new Set(entry.fields.map((f) => f.slug));
    const conditions = (await repo.listConditions(tx, orgId, board.id)).filter(
      (c) =>
        c.enabled &&
        (c.scope === 'board' || c.phaseId === entry.id) &&
        [...conditionSlugs(c)].every((slug) => slugs.has(slug)),
    );
    return {
      board: { documentId: board.documentId, name: board.name },
      phase: { documentId: entry.documentId, name: entry.name, description: entry.description },
      consent: board.formConsent ?? null,
      fields: entry.fields.map((f) => ({
        slug: f.slug,
        label: f.label,
        type: f.type,
        order: f.order,
        required: f.required,
        placeholder: f.placeholder,
        helpText: f.helpText,
        defaultValue: f.defaultValue,
        options: f.options,
      })),
      conditions: conditions.map((c) => ({
        name: c.name,
        order: c.order,
        criteria: c.criteria,
        actionsWhenTrue: c.actionsWhenTrue,
        actionsWhenFalse: c.actionsWhenFalse,
      })),
    };
  });
}
