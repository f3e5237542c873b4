import type { SQL } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import { commitWithNext, type Database, type Tx } from '../../platform/db/client.js';
import { AppError, type FieldError, validationError } from '../../platform/http/errors.js';
import {
  compileFilters,
  compileListQuery,
  compilePopulate,
  type ListQueryInput,
  listPage,
  type PageWindow,
  windowPage,
} from '../../platform/http/list-query.js';
import { sanitizeRichText } from '../../platform/http/rich-text.js';
import { iso, isoRequired, type MembershipRef } from '../../platform/http/schemas.js';
import { hasRole, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import {
  accessTo,
  assembleStructure,
  type BoardAccess,
  type BoardStructure,
  type PhaseStructure,
  publicBoardTransaction,
  requireWrite,
} from '../boards/access.js';
import * as boardsRepo from '../boards/repo.js';
import { contactIdByDocumentId, contactRefsByIds } from '../contacts/repo.js';
import { recordContactActivity } from '../contacts/service.js';
import { membershipIdsByDocumentIds, membershipRefsByIds } from '../organizations/repo.js';
import { withSavedFilter } from '../saved-filters/service.js';
import { cardVisibility, requireCardEdit } from './access.js';
import { type ConditionRule, hiddenFields } from './conditions.js';
import { countsOf, foldSometimes } from './counts.js';
import { cardChanged, cardDeleted } from './events.js';
import {
  applyDefaults,
  derivedTitle,
  type FieldChange,
  type FieldWriteOptions,
  mergeFieldWrites,
  missingRequired,
  optionLabel,
  readFieldData,
  readFields,
  requiredErrors,
  type StoredFields,
} from './fields.js';
import { removingFiles } from './files.js';
import { type Actor, boardQueued, cardMeta, insertCards, justCreated, type PreparedCard } from './insert.js';
import { cardModelFor, countsScope, pinnedPhase } from './query-model.js';
import * as repo from './repo.js';
import { compactReport, REPORT_COMPACT_AFTER } from './report-rollups.js';
import type { Card, CardCreateInput, CardListQuery, CardUpdateInput } from './schema.js';
import type { Tracking } from './table.js';
import { titleSearchOf, titleSearchStats } from './title-search.js';

// ---- access

interface BoardScope {
  access: BoardAccess;
  structure: BoardStructure;
  /** Non-admins on a board restricted to assignees see only their cards (DESIGN.md §6). */
  visibility: SQL | undefined;
  assigneeOnly: number | null;
}

async function openBoard(tx: Tx, ctx: TenantContext, boardId: string, write: boolean): Promise<BoardScope> {
  // The board and its structure in one statement, then the same checks as loadBoardForRead / ForWrite.
  const found = await boardsRepo.findBoardWithStructure(tx, ctx.orgId, boardId);
  const read = await accessTo(tx, ctx, found?.board);
  const access = write ? requireWrite(ctx, read) : read;
  const { rows } = found!;
  const structure = assembleStructure(access.board, rows.phases, rows.fields, rows.tags);
  boardConditions.set(structure, rows.conditions);
  boardQueued.set(structure, found!.queued);
  const visibility = cardVisibility(ctx, access);
  return { access, structure, visibility, assigneeOnly: visibility ? ctx.membershipId : null };
}

/** The board's structure around a board row already read (loadBoardStructure would read the board again). */
export async function structureOf(
  tx: Tx,
  orgId: number,
  board: boardsRepo.BoardRow,
): Promise<BoardStructure> {
  const rows = await boardsRepo.listStructure(tx, orgId, [board.id]);
  const structure = assembleStructure(board, rows.phases, rows.fields, rows.tags);
  boardConditions.set(structure, rows.conditions);
  return structure;
}

/** The field conditions read with a structure (same statement), so card writes need no read of their own. */
const boardConditions = new WeakMap<BoardStructure, boardsRepo.ConditionRow[]>();

const conditionsOf = async (tx: Tx, orgId: number, structure: BoardStructure) =>
  boardConditions.get(structure) ?? boardsRepo.listConditions(tx, orgId, structure.board.id);

const cardNotFound = () => new AppError('NotFoundError', 'Card not found');

async function loadCard(
  tx: Tx,
  ctx: TenantContext,
  scope: BoardScope,
  documentId: string,
  forUpdate = false,
) {
  const row = await repo.findCard(
    tx,
    ctx.orgId,
    scope.access.board.id,
    documentId,
    scope.visibility,
    forUpdate,
  );
  if (!row) throw cardNotFound();
  return row;
}

// ---- presenting

async function presentCards(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  rows: repo.CardRow[],
  withFieldData: boolean,
): Promise<Card[]> {
  const known = rows.map((r) => justCreated.get(r));
  const contactIds = rows.flatMap((r) => (r.contactId === null ? [] : [r.contactId]));
  // The cards' relations and contacts in one statement, unless the relations are known (cards just created).
  const relations = known.every((k) => k !== undefined)
    ? {
        assignees: new Map<number, MembershipRef[]>(),
        tagIds: new Map(rows.map((r, i) => [r.id, known[i]!.tagIds])),
        contacts: await contactRefsByIds(tx, orgId, contactIds),
      }
    : await repo.relationsByCard(
        tx,
        orgId,
        rows.map((r) => r.id),
        contactIds,
      );
  const contacts = relations.contacts;
  const tags = new Map(structure.tags.map((t) => [t.id, t]));
  return rows.map((r) => {
    const phase = r.currentPhaseId === null ? undefined : structure.phasesById.get(r.currentPhaseId);
    const stored = r.fields as StoredFields;
    return {
      documentId: r.documentId,
      title: r.title,
      description: r.description,
      value: Number(r.value),
      dueDate: iso(r.dueDate),
      dueDateSource: r.dueDateSource as Card['dueDateSource'],
      currentPhase: phase
        ? {
            documentId: phase.documentId,
            name: phase.name,
            slug: phase.slug,
            order: phase.order,
            maxTimeInPhaseHours: phase.maxTimeInPhaseHours,
          }
        : null,
      currentPhaseEnteredAt: isoRequired(r.currentPhaseEnteredAt),
      assignees: relations.assignees.get(r.id) ?? [],
      tags: (relations.tagIds.get(r.id) ?? []).flatMap((id) => {
        const t = tags.get(id);
        return t ? [{ documentId: t.documentId, name: t.name, slug: t.slug, color: t.color }] : [];
      }),
      contact: r.contactId === null ? null : (contacts.get(r.contactId) ?? null),
      fields: readFields(structure, stored),
      ...(withFieldData ? { fieldData: readFieldData(structure, r.documentId, stored) } : {}),
      creationSource: r.creationSource as Card['creationSource'],
      tracking: r.tracking as Record<string, string>,
      createdAt: isoRequired(r.createdAt),
      updatedAt: isoRequired(r.updatedAt),
    };
  });
}

async function presentCard(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  row: repo.CardRow,
  withFieldData = false,
) {
  const [card] = await presentCards(tx, orgId, structure, [row], withFieldData);
  return card;
}

// ---- reading

export async function listCards(ctx: TenantContext, boardId: string, query: CardListQuery) {
  const { stats, statsTodayStart, savedFilter, ...requested } = query;
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const listQuery = await withSavedFilter(tx, ctx, 'cards', savedFilter, requested, scope.access.board.id);
    const pinned = pinnedPhase(scope.structure, listQuery.filters);
    const compiled = compileListQuery(cardModelFor(scope.structure), listQuery);
    // A pinned phase is also said as `current_phase_id = <id>`: the planner then walks that phase's own
    // (phase, created_at desc, id desc) index and stops after the page, instead of walking the board's newest
    // cards through the join to phases until enough of them are in the phase (docs/performance.md).
    const list = pinned ? { ...compiled, where: repo.inPhase(compiled.where, pinned.id) } : compiled;
    const wantStats = stats !== 'false';
    const statsOptions = wantStats
      ? {
          todayStart: statsTodayStart ? new Date(statsTodayStart) : startOfUtcDay(),
          slaHours: pinned?.maxTimeInPhaseHours ?? null,
        }
      : null;
    // The whole board or one phase, seen in full, with "today" at UTC midnight: from the card counts. A title
    // search (alone or in one phase), seen in full: from the narrow title search table. Else from the cards.
    const countable = scope.visibility ? undefined : countsScope(listQuery.filters, pinned);
    const titleSearch = scope.visibility ? undefined : titleSearchOf(listQuery.filters, pinned);
    // The page and its total leave together (one socket write on PostgreSQL: first-query-begin.ts).
    const [rows, counted] = await Promise.all([
      repo.listCards(tx, ctx.orgId, scope.access.board.id, list, scope.visibility),
      countable && (!statsOptions || isUtcMidnight(statsOptions.todayStart))
        ? countsOf(tx, ctx.orgId, scope.access.board.id, countable.phaseId, statsOptions)
        : titleSearch
          ? titleSearchStats(tx, ctx.orgId, scope.access.board.id, titleSearch, statsOptions)
          : repo.countAndStats(
              tx,
              ctx.orgId,
              scope.access.board.id,
              list.where,
              scope.visibility,
              statsOptions,
            ),
    ]);
    // The page's relations are the read's last statement: its commit goes with them.
    commitWithNext(tx);
    const data = await presentCards(tx, ctx.orgId, scope.structure, rows, list.populate.has('fieldData'));
    const page = listPage(data, counted.total, list);
    // Object.assign keeps the page object itself, and with it the fields/populate projection.
    return counted.stats ? Object.assign(page, { meta: { ...page.meta, stats: counted.stats } }) : page;
  });
}

function isUtcMidnight(d: Date): boolean {
  return d.getTime() % 86_400_000 === 0;
}

function startOfUtcDay(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export async function getCard(
  ctx: TenantContext,
  boardId: string,
  id: string,
  rawPopulate: ListQueryInput['populate'],
) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const populate = compilePopulate(cardModelFor(scope.structure), rawPopulate);
    const row = await loadCard(tx, ctx, scope, id);
    return presentCard(tx, ctx.orgId, scope.structure, row, populate.has('fieldData'));
  });
}

// ---- writing

const actorOf = (ctx: TenantContext): Actor => ({ orgId: ctx.orgId, membershipId: ctx.membershipId, ctx });

function findPhase(structure: BoardStructure, ref: string): PhaseStructure | undefined {
  return structure.phases.find((p) => p.documentId === ref) ?? structure.phases.find((p) => p.slug === ref);
}

function unknownPhase(path: string[], ref: string, structure: BoardStructure): FieldError {
  return {
    path,
    message: `no phase ${ref} on this board; phases: ${structure.phases.map((p) => p.slug).join(', ') || '(none)'}`,
    name: 'ValidationError',
  };
}

/** Tags by documentId or slug; unknown ones are a 400 that lists the board's tags. */
function resolveTags(structure: BoardStructure, refs: string[]): number[] {
  const ids: number[] = [];
  const unknown: { ref: string; index: number }[] = [];
  refs.forEach((ref, index) => {
    const tag = structure.tags.find((t) => t.documentId === ref || t.slug === ref);
    if (!tag) unknown.push({ ref, index });
    else if (!ids.includes(tag.id)) ids.push(tag.id);
  });
  if (unknown.length) {
    const valid = structure.tags.map((t) => t.slug).join(', ') || '(none)';
    throw validationError(
      `Unknown tag ${unknown.map((u) => u.ref).join(', ')}; tags of this board: ${valid}`,
      unknown.map((u) => ({
        path: ['tags', u.index],
        message: `no tag ${u.ref} on this board`,
        name: 'ValidationError',
      })),
      { validTags: structure.tags.map((t) => ({ documentId: t.documentId, slug: t.slug, name: t.name })) },
    );
  }
  return ids;
}

async function resolveAssignees(tx: Tx, orgId: number, refs: string[], errors: FieldError[]) {
  const unique = [...new Set(refs)];
  const { ids, missing } = await membershipIdsByDocumentIds(tx, orgId, unique);
  for (const m of missing)
    errors.push({
      path: ['assignees', refs.indexOf(m)],
      message: `no member ${m} in this organization`,
      name: 'ValidationError',
    });
  return unique.flatMap((d) => (ids.has(d) ? [ids.get(d)!] : []));
}

async function resolveContact(tx: Tx, orgId: number, ref: string | null, errors: FieldError[]) {
  if (ref === null) return null;
  const id = await contactIdByDocumentId(tx, orgId, ref);
  if (id === undefined)
    errors.push({
      path: ['contact'],
      message: `no contact ${ref} in this organization`,
      name: 'ValidationError',
    });
  return id ?? null;
}

function dueFromPhase(structure: BoardStructure, phase: PhaseStructure | undefined, enteredAt: Date) {
  if (!structure.settings.autoUpdateDueDateFromPhase || !phase?.maxTimeInPhaseHours) return undefined;
  return new Date(enteredAt.getTime() + phase.maxTimeInPhaseHours * 3_600_000);
}

interface CreateOptions {
  source: 'api' | 'form' | 'lead_ads' | 'chat_inbound';
  /** A chat fills no entry form: its card skips the required-field check (the team completes it). */
  waiveRequired?: boolean;
  tracking?: Tracking | Record<string, string>;
  fieldOptions?: FieldWriteOptions;
}

/** Checks a new card against the board (a 400 listing every problem) and computes its row. */
export async function prepareCard(
  tx: Tx,
  actor: Actor,
  structure: BoardStructure,
  input: CardCreateInput,
  opts: CreateOptions,
): Promise<PreparedCard> {
  const errors: FieldError[] = [];
  const orgId = actor.orgId;
  const rules = await conditionsOf(tx, orgId, structure);
  const phase = input.currentPhase ? findPhase(structure, input.currentPhase) : structure.entryPhase;
  if (input.currentPhase && !phase)
    errors.push(unknownPhase(['currentPhase'], input.currentPhase, structure));
  const merged = await mergeFieldWrites(
    tx,
    orgId,
    structure,
    {},
    input.fields ?? {},
    errors,
    opts.fieldOptions,
  );
  const values = applyDefaults(structure.entryPhase, merged.next);
  if (!opts.waiveRequired)
    errors.push(
      ...requiredErrors(
        missingRequired(structure.entryPhase, values, hiddenFields(structure, rules, values)),
      ).filter((e) => !errors.some((x) => x.path[1] === e.path[1])),
    );
  const tagIds = input.tags ? resolveTags(structure, input.tags) : [];
  const assigneeIds = input.assignees ? await resolveAssignees(tx, orgId, input.assignees, errors) : [];
  const contactId = input.contact ? await resolveContact(tx, orgId, input.contact, errors) : null;
  if (errors.length) throw validationError(summarise(errors), errors);

  const now = new Date();
  const phaseDue = input.dueDate ? undefined : dueFromPhase(structure, phase, now);
  return {
    values: {
      title: input.title ?? derivedTitle(structure.entryPhase, values) ?? 'Untitled card',
      description: input.description ?? null,
      value: input.value ?? 0,
      dueDate: input.dueDate ? new Date(input.dueDate) : (phaseDue ?? null),
      dueDateSource: input.dueDate ? 'manual' : phaseDue ? 'phase' : null,
      currentPhaseId: phase?.id ?? null,
      currentPhaseEnteredAt: now,
      contactId,
      creationSource: opts.source,
      tracking: opts.tracking ?? {},
      fields: values,
    },
    assigneeIds,
    tagIds,
    history: system(
      0,
      actor,
      'card_created',
      `Card created (${{ form: 'public form', lead_ads: 'lead ad', chat_inbound: 'chat', api: 'API' }[opts.source]})`,
      {
        phase: phase ? { documentId: phase.documentId, name: phase.name } : null,
        creationSource: opts.source,
      },
    ),
    attach: merged.attach,
  };
}

async function createCardIn(
  tx: Tx,
  actor: Actor,
  structure: BoardStructure,
  input: CardCreateInput,
  opts: CreateOptions,
) {
  const [row] = await insertCards(tx, actor, structure, [
    await prepareCard(tx, actor, structure, input, opts),
  ]);
  return row;
}

function summarise(errors: FieldError[]): string {
  return errors.length === 1
    ? `${errors[0].path.join('.')}: ${errors[0].message}`
    : `${errors.length} invalid values`;
}

function system(
  cardId: number,
  actor: Actor,
  activityType: string,
  content: string,
  metadata: Record<string, unknown>,
): repo.CommentValues {
  return {
    cardId,
    content,
    contentFormat: 'plain',
    type: 'system',
    activityType,
    mentions: [],
    authorMembershipId: actor.membershipId,
    metadata,
  };
}

export async function createCard(ctx: TenantContext, boardId: string, input: CardCreateInput) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, true);
    const row = await createCardIn(tx, actorOf(ctx), scope.structure, input, { source: 'api' });
    return presentCard(tx, ctx.orgId, scope.structure, row);
  });
}

/**
 * A card for a chat conversation (creationSource chat_inbound) in the board's entry phase, inside the
 * caller's transaction (the inbox: an inbound conversation, or a member's "create card"). ctx null: the
 * inbound webhook, no person acting. The caller has checked the board (or links it by configuration).
 */
export async function createChatCard(
  tx: Tx,
  orgId: number,
  board: boardsRepo.BoardRow,
  input: { title: string; contact: string | null },
  ctx: TenantContext | null,
) {
  const [card] = await createChatCards(tx, orgId, board, [input], ctx);
  return card;
}

/** The cards of several new conversations on one board: the structure is read once (inbox ingestion). */
export async function createChatCards(
  tx: Tx,
  orgId: number,
  board: boardsRepo.BoardRow,
  inputs: { title: string; contact: string | null }[],
  ctx: TenantContext | null,
) {
  if (inputs.length === 0) return [];
  const structure = await structureOf(tx, orgId, board);
  const actor = ctx ? actorOf(ctx) : { orgId, membershipId: null, ctx: null };
  const rows = [];
  for (const input of inputs)
    rows.push(
      await createCardIn(
        tx,
        actor,
        structure,
        { title: input.title, ...(input.contact ? { contact: input.contact } : {}) },
        { source: 'chat_inbound', waiveRequired: true },
      ),
    );
  return rows;
}

/**
 * Several cards of one board in one transaction, each under every rule of createCard; the board is opened
 * once and the cards are not presented (the demo seed writes hundreds: src/demo/seed.ts).
 */
export async function createCards(ctx: TenantContext, boardId: string, inputs: CardCreateInput[]) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, true);
    const created: { documentId: string; title: string }[] = [];
    for (const input of inputs) {
      const row = await createCardIn(tx, actorOf(ctx), scope.structure, input, { source: 'api' });
      created.push({ documentId: row.documentId, title: row.title });
    }
    return created;
  });
}

export async function updateCard(
  ctx: TenantContext,
  boardId: string,
  id: string,
  input: CardUpdateInput,
  opts: UpdateOptions = {},
) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, true);
    const row = await loadCard(tx, ctx, scope, id, true);
    await requireCardEdit(tx, ctx, scope.access, row.id);
    const updated = await applyUpdate(tx, actorOf(ctx), scope.structure, row, input, opts);
    // The card's relations are the last statement: the commit goes with them.
    commitWithNext(tx);
    return presentCard(tx, ctx.orgId, scope.structure, updated);
  });
}

export async function moveCard(ctx: TenantContext, boardId: string, id: string, phaseRef: string) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, true);
    const row = await loadCard(tx, ctx, scope, id, true);
    await requireCardEdit(tx, ctx, scope.access, row.id);
    const target = findPhase(scope.structure, phaseRef);
    if (!target) throw validationError('Unknown phase', [unknownPhase(['phase'], phaseRef, scope.structure)]);
    const updated = await applyUpdate(tx, actorOf(ctx), scope.structure, row, {
      currentPhase: target.documentId,
    });
    // The card's relations are the last statement: the commit goes with them.
    commitWithNext(tx);
    return presentCard(tx, ctx.orgId, scope.structure, updated);
  });
}

/** Who set a due date: a person (manual) unless an automation says so. */
export interface UpdateOptions {
  dueDateSource?: 'manual' | 'automation';
}

/** Every change of a PUT (and a move) in one place: validation, the row update, history, timeline. */
async function applyUpdate(
  tx: Tx,
  actor: Actor,
  structure: BoardStructure,
  row: repo.CardRow,
  input: CardUpdateInput,
  opts: UpdateOptions = {},
): Promise<repo.CardRow> {
  const orgId = actor.orgId;
  const errors: FieldError[] = [];
  const rules = await conditionsOf(tx, orgId, structure);
  const current = row.fields as StoredFields;
  const merged = await mergeFieldWrites(tx, orgId, structure, current, input.fields ?? {}, errors, {
    cardId: row.id,
  });
  // Entry-form answers are required for every card: clearing one is refused.
  const cleared = missingRequired(
    structure.entryPhase,
    merged.next,
    hiddenFields(structure, rules, merged.next),
  ).filter((f) => !missingRequired(structure.entryPhase, current).includes(f));
  errors.push(...requiredErrors(cleared));
  const tagIds = input.tags ? resolveTags(structure, input.tags) : undefined;
  const assigneeIds = input.assignees
    ? await resolveAssignees(tx, orgId, input.assignees, errors)
    : undefined;
  const contactId =
    input.contact !== undefined ? await resolveContact(tx, orgId, input.contact, errors) : undefined;
  const target = input.currentPhase ? findPhase(structure, input.currentPhase) : undefined;
  if (input.currentPhase && !target)
    errors.push(unknownPhase(['currentPhase'], input.currentPhase, structure));
  if (errors.length) throw validationError(summarise(errors), errors);
  await repo.attachFiles(tx, orgId, row.id, merged.attach);

  const history: repo.CommentValues[] = [];
  const note = (type: string, content: string, metadata: Record<string, unknown>) =>
    history.push(system(row.id, actor, type, content, metadata));
  const values: Partial<repo.CardValues> = {};

  if (input.title !== undefined && input.title !== row.title) {
    values.title = input.title;
    note('title_changed', `Title changed to "${input.title}"`, { from: row.title, to: input.title });
  }
  if (input.description !== undefined && input.description !== row.description) {
    values.description = input.description;
    note('description_changed', 'Description changed', {});
  }
  if (input.value !== undefined && input.value !== Number(row.value)) {
    values.value = input.value;
    note('value_changed', `Value changed from ${Number(row.value)} to ${input.value}`, {
      from: Number(row.value),
      to: input.value,
    });
  }
  if (input.dueDate !== undefined && iso(input.dueDate) !== iso(row.dueDate)) {
    values.dueDate = input.dueDate === null ? null : new Date(input.dueDate);
    values.dueDateSource = input.dueDate === null ? null : (opts.dueDateSource ?? 'manual');
    note(
      'due_date_changed',
      input.dueDate === null ? 'Due date removed' : `Due date set to ${iso(input.dueDate)}`,
      {
        from: iso(row.dueDate),
        to: iso(input.dueDate),
      },
    );
  }
  if (merged.changes.length) values.fields = merged.next;
  for (const change of merged.changes) noteField(note, change);
  if (contactId !== undefined && contactId !== row.contactId) {
    values.contactId = contactId;
    const refs = await contactRefsByIds(
      tx,
      orgId,
      [contactId, row.contactId].filter((x): x is number => x !== null),
    );
    note(
      'contact_changed',
      contactId === null ? 'Contact removed' : `Contact set to ${refs.get(contactId)?.name}`,
      {
        from: row.contactId === null ? null : (refs.get(row.contactId)?.documentId ?? null),
        to: contactId === null ? null : (refs.get(contactId)?.documentId ?? null),
      },
    );
  }
  let moved: PhaseStructure | undefined;
  let movedFrom: PhaseStructure | undefined;
  if (target && target.id !== row.currentPhaseId) {
    Object.assign(values, checkMove(structure, rules, row, merged.next, target));
    moved = target;
    const from = row.currentPhaseId === null ? undefined : structure.phasesById.get(row.currentPhaseId);
    movedFrom = from;
    note('phase_changed', `Moved from ${from?.name ?? '(no phase)'} to ${target.name}`, {
      from: from ? { documentId: from.documentId, name: from.name } : null,
      to: { documentId: target.documentId, name: target.name },
    });
  }

  if (assigneeIds) await syncAssignees(tx, orgId, row.id, assigneeIds, note);
  if (tagIds) await syncTags(tx, orgId, structure, row.id, tagIds, note);
  // Any recorded change (tags and assignees included) bumps updatedAt.
  const updated = history.length ? await repo.updateCard(tx, orgId, row.id, values) : row;
  if (history.length) await foldSometimes(tx, orgId, row.boardId);
  await repo.recordHistory(tx, orgId, history);
  if (history.length)
    await cardChanged(
      tx,
      orgId,
      structure,
      updated,
      history.map((h) => h.activityType ?? 'updated'),
      moved ? { from: movedFrom, to: moved } : undefined,
    );
  if (moved && updated.contactId !== null && actor.ctx)
    await recordOutcome(tx, actor.ctx, structure, updated, moved);
  return updated;
}

function noteField(
  note: (type: string, content: string, metadata: Record<string, unknown>) => void,
  c: FieldChange,
) {
  note('field_changed', c.to === null ? `${c.field.label} cleared` : `${c.field.label} changed`, {
    field: { documentId: c.field.documentId, slug: c.field.slug, label: c.field.label },
    from: c.from,
    to: c.to,
  });
}

/** The move rules (DESIGN.md §7): blocked transition → 422; leaving with empty required fields → 422. */
function checkMove(
  structure: BoardStructure,
  rules: ConditionRule[],
  row: repo.CardRow,
  values: StoredFields,
  target: PhaseStructure,
) {
  const from = row.currentPhaseId === null ? undefined : structure.phasesById.get(row.currentPhaseId);
  const rule = from?.allowedTransitions.find((t) => t.phaseId === target.id);
  if (rule && !rule.allowed) {
    throw new AppError(
      'UnprocessableEntityError',
      `Moving from ${from!.name} to ${target.name} is not allowed`,
      {
        from: { documentId: from!.documentId, slug: from!.slug },
        to: { documentId: target.documentId, slug: target.slug },
      },
    );
  }
  const missing = missingRequired(from, values, hiddenFields(structure, rules, values));
  if (missing.length) {
    throw new AppError(
      'UnprocessableEntityError',
      `Fill the required fields of ${from!.name} before leaving it: ${missing.map((f) => f.slug).join(', ')}`,
      { errors: requiredErrors(missing), missingFields: missing.map((f) => f.slug) },
    );
  }
  const enteredAt = new Date();
  const due = dueFromPhase(structure, target, enteredAt);
  return {
    currentPhaseId: target.id,
    currentPhaseEnteredAt: enteredAt,
    ...(due ? { dueDate: due, dueDateSource: 'phase' as const } : {}),
  };
}

/** Won/lost phases (BoardSettings) reach the contact's timeline. */
async function recordOutcome(
  tx: Tx,
  ctx: TenantContext,
  structure: BoardStructure,
  row: repo.CardRow,
  phase: PhaseStructure,
) {
  const outcome =
    phase.id === structure.settings.wonPhaseId
      ? 'card_won'
      : phase.id === structure.settings.lostPhaseId
        ? 'card_lost'
        : null;
  if (!outcome) return;
  await recordContactActivity(
    tx,
    ctx,
    row.contactId!,
    outcome,
    `Card "${row.title}" ${outcome === 'card_won' ? 'won' : 'lost'}`,
    {
      ...cardMeta(structure, row),
      value: Number(row.value),
      phase: { documentId: phase.documentId, name: phase.name },
    },
  );
}

type Note = (type: string, content: string, metadata: Record<string, unknown>) => void;

async function syncAssignees(tx: Tx, orgId: number, cardId: number, wanted: number[], note: Note) {
  const current = (await repo.assigneeIdsByCard(tx, orgId, [cardId])).get(cardId) ?? [];
  const added = wanted.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  await repo.addAssignees(tx, orgId, cardId, added);
  await repo.removeAssignees(tx, orgId, cardId, removed);
  const refs = await membershipRefsByIds(tx, orgId, [...added, ...removed]);
  for (const [list, type, verb] of [
    [added, 'assignee_added', 'assigned'],
    [removed, 'assignee_removed', 'unassigned'],
  ] as const) {
    for (const id of list) {
      const ref = refs.get(id);
      note(type, `${ref?.user.username ?? 'A member'} ${verb}`, { membership: ref?.documentId ?? null });
    }
  }
}

async function syncTags(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  cardId: number,
  wanted: number[],
  note: Note,
) {
  const current = (await repo.tagIdsByCard(tx, orgId, [cardId])).get(cardId) ?? [];
  const added = wanted.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !wanted.includes(id));
  await repo.addTags(tx, orgId, cardId, added);
  await repo.removeTags(tx, orgId, cardId, removed);
  const byId = new Map(structure.tags.map((t) => [t.id, t]));
  for (const [list, type, verb] of [
    [added, 'tag_added', 'added'],
    [removed, 'tag_removed', 'removed'],
  ] as const) {
    for (const id of list) {
      const tag = byId.get(id);
      note(type, `Tag ${tag?.name ?? id} ${verb}`, {
        tag: tag ? { documentId: tag.documentId, slug: tag.slug } : null,
      });
    }
  }
}

/** The card's files go from disk once the delete committed (files.ts). */
export async function deleteCard(ctx: TenantContext, config: Config, boardId: string, id: string) {
  return removingFiles(config, (doomed) =>
    ctx.transaction(async (tx) => {
      const scope = await openBoard(tx, ctx, boardId, true);
      const row = await loadCard(tx, ctx, scope, id, true);
      await requireCardEdit(tx, ctx, scope.access, row.id);
      doomed.push(...(await repo.deleteCardFiles(tx, ctx.orgId, row.id)));
      await repo.deleteCard(tx, ctx.orgId, row.id);
      await cardDeleted(tx, ctx.orgId, scope.structure, row);
      await foldSometimes(tx, ctx.orgId, row.boardId);
      await audit(tx, ctx, 'card.deleted', row.documentId, {
        title: row.title,
        board: scope.access.board.documentId,
        value: Number(row.value),
      });
      return { documentId: row.documentId, deleted: true as const };
    }),
  );
}

// ---- public form

export async function submitPublicForm(
  db: Database,
  boardId: string,
  fields: Record<string, unknown>,
  tracking: Tracking,
) {
  return publicBoardTransaction(db, boardId, async (tx, orgId, board) => {
    const structure = await structureOf(tx, orgId, board);
    if (!structure.entryPhase) throw new AppError('NotFoundError', 'This board has no entry form');
    const row = await createCardIn(
      tx,
      { orgId, membershipId: null, ctx: null },
      structure,
      { fields },
      { source: 'form', tracking, fieldOptions: { phaseIds: new Set([structure.entryPhase.id]) } },
    );
    return { documentId: row.documentId, createdAt: isoRequired(row.createdAt) };
  });
}

// ---- comments

export interface CommentInput {
  content: string;
  contentFormat: 'plain' | 'html';
  mentions: string[];
}

async function presentComments(tx: Tx, orgId: number, rows: repo.CommentRow[]) {
  const refs = await membershipRefsByIds(tx, orgId, [
    ...new Set(rows.flatMap((r) => (r.authorMembershipId === null ? [] : [r.authorMembershipId]))),
  ]);
  return rows.map((r) => ({
    documentId: r.documentId,
    content: r.content,
    contentFormat: r.contentFormat as 'plain' | 'html',
    type: r.type as 'user' | 'system',
    activityType: r.activityType,
    mentions: r.mentions,
    author: r.authorMembershipId === null ? null : (refs.get(r.authorMembershipId) ?? null),
    metadata: r.metadata,
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  }));
}

async function checkMentions(tx: Tx, orgId: number, mentions: string[]) {
  const unique = [...new Set(mentions)];
  const { missing } = await membershipIdsByDocumentIds(tx, orgId, unique);
  if (missing.length) {
    throw validationError(
      'Unknown mentioned member',
      missing.map((m) => ({
        path: ['mentions', mentions.indexOf(m)],
        message: `no member ${m}`,
        name: 'ValidationError',
      })),
    );
  }
  return unique;
}

export async function listComments(ctx: TenantContext, boardId: string, cardId: string, w: PageWindow) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const card = await loadCard(tx, ctx, scope, cardId);
    const { rows, total } = await repo.listComments(tx, ctx.orgId, card.id, w.offset, w.pageSize);
    return windowPage(await presentComments(tx, ctx.orgId, rows), total, w);
  });
}

/** Commenting needs the member role and sight of the card (not board editing rights). */
export async function addComment(ctx: TenantContext, boardId: string, cardId: string, input: CommentInput) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const card = await loadCard(tx, ctx, scope, cardId);
    const mentions = await checkMentions(tx, ctx.orgId, input.mentions);
    const [row] = await repo.insertComments(tx, ctx.orgId, [
      {
        cardId: card.id,
        content: commentContent(input.content, input.contentFormat),
        contentFormat: input.contentFormat,
        type: 'user',
        activityType: null,
        mentions,
        authorMembershipId: ctx.membershipId,
        metadata: {},
      },
    ]);
    return (await presentComments(tx, ctx.orgId, [row]))[0];
  });
}

/** HTML comments are stored sanitised; plain ones are text, escaped by whoever renders them. */
function commentContent(content: string, format: 'plain' | 'html'): string {
  if (format === 'plain') return content;
  const clean = sanitizeRichText(content).trim();
  if (!clean)
    throw validationError('The comment has no content left once unsafe HTML is removed', [
      { path: ['content'], message: 'holds no allowed HTML content' },
    ]);
  return clean;
}

/** System comments are history: nobody edits them. A user comment: its author, or an admin to delete. */
async function loadOwnComment(
  tx: Tx,
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  id: string,
  op: 'edit' | 'delete',
) {
  const scope = await openBoard(tx, ctx, boardId, false);
  const card = await loadCard(tx, ctx, scope, cardId);
  const row = await repo.findComment(tx, ctx.orgId, card.id, id);
  if (!row) throw new AppError('NotFoundError', 'Comment not found');
  if (row.type === 'system')
    throw new AppError('ForbiddenError', 'System comments are card history and cannot change');
  const mine = row.authorMembershipId === ctx.membershipId;
  if (!mine && !(op === 'delete' && hasRole(ctx, 'admin')))
    throw new AppError(
      'ForbiddenError',
      `Only the author may ${op} this comment${op === 'delete' ? ' (or an admin)' : ''}`,
    );
  return row;
}

export async function updateComment(
  ctx: TenantContext,
  boardId: string,
  cardId: string,
  id: string,
  input: Partial<CommentInput>,
) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const row = await loadOwnComment(tx, ctx, boardId, cardId, id, 'edit');
    const mentions = input.mentions ? await checkMentions(tx, ctx.orgId, input.mentions) : undefined;
    // Switching a plain comment to html re-checks its stored text as HTML.
    const rewrite = input.content !== undefined || input.contentFormat === 'html';
    const content = rewrite
      ? commentContent(
          input.content ?? row.content,
          input.contentFormat ?? (row.contentFormat as 'plain' | 'html'),
        )
      : undefined;
    const updated = await repo.updateComment(tx, ctx.orgId, row.id, {
      ...(content !== undefined ? { content } : {}),
      ...(input.contentFormat !== undefined ? { contentFormat: input.contentFormat } : {}),
      ...(mentions ? { mentions } : {}),
    });
    return (await presentComments(tx, ctx.orgId, [updated]))[0];
  });
}

export async function deleteComment(ctx: TenantContext, boardId: string, cardId: string, id: string) {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const row = await loadOwnComment(tx, ctx, boardId, cardId, id, 'delete');
    await repo.deleteComment(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'comment.deleted', row.documentId, {
      card: cardId,
      content: row.content.slice(0, 500),
    });
    return { documentId: row.documentId, deleted: true as const };
  });
}

// ---- report and aggregate

export async function boardReport(
  ctx: TenantContext,
  boardId: string,
  range: { from?: string; to?: string },
) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const { structure } = scope;
    const to = range.to ? new Date(range.to) : new Date();
    const from = range.from ? new Date(range.from) : structure.board.createdAt;
    if (from > to)
      throw validationError('from must not be after to', [
        { path: ['from'], message: 'must not be after to', name: 'ValidationError' },
      ]);
    const s: repo.ReportScope = {
      orgId: ctx.orgId,
      boardId: structure.board.id,
      from,
      to,
      assigneeOnly: scope.assigneeOnly,
    };
    const { wonPhaseId, lostPhaseId } = structure.settings;
    const rows = await repo.boardReport(tx, s, wonPhaseId, lostPhaseId);
    const pending = rows.find((r) => r.kind === 'pending');
    if (pending && pending.count > REPORT_COMPACT_AFTER) await compactReport(tx, ctx.orgId, s.boardId);
    const of = (kind: repo.ReportRow['kind']) => rows.filter((r) => r.kind === kind);
    const one = (kind: repo.ReportRow['kind']) => of(kind)[0];
    const byPhase = of('phase').map((r) => ({ phaseId: r.key, count: r.count, value: r.value }));
    const byAssignee = of('assignee');
    const byTag = new Map(of('tag').map((r) => [r.key, r.count]));
    const createdByDay = of('day')
      .map((r) => ({ date: r.day!, count: r.count }))
      .sort((a, b) => a.date.localeCompare(b.date));
    const summary = {
      totalCards: one('total').count,
      wonCount: one('won').count,
      lostCount: one('lost').count,
      unassignedCount: byAssignee.find((r) => r.key === null)?.count ?? 0,
      untaggedCount: byTag.get(null) ?? 0,
      totalValue: one('total').value,
      wonValue: one('won').value,
      opportunityValue: one('open').value,
    };

    const phaseRows = structure.phases.map((p) => {
      const hit = byPhase.find((r) => r.phaseId === p.id);
      return {
        phaseId: p.documentId,
        name: p.name,
        slug: p.slug,
        order: p.order,
        count: hit?.count ?? 0,
        value: hit?.value ?? 0,
        isWon: p.id === wonPhaseId,
        isLost: p.id === lostPhaseId,
      };
    });
    // Cards without a phase, or whose phase was deleted.
    const orphans = byPhase.filter((r) => r.phaseId === null || !structure.phasesById.has(r.phaseId));
    if (orphans.length) {
      phaseRows.push({
        phaseId: '__no_phase__',
        name: 'No phase',
        slug: '__no_phase__',
        order: -1,
        count: orphans.reduce((n, r) => n + r.count, 0),
        value: orphans.reduce((n, r) => n + r.value, 0),
        isWon: false,
        isLost: false,
      });
    }
    return {
      boardId: structure.board.documentId,
      boardName: structure.board.name,
      showValue: structure.settings.showValue,
      currency: structure.settings.currency,
      dateRange: { from: from.toISOString(), to: to.toISOString() },
      summary,
      phases: phaseRows,
      assignees: byAssignee
        .map((r) => ({
          membershipId: r.documentId,
          displayName: r.username ?? 'Unassigned',
          count: r.count,
          value: r.value,
        }))
        .sort((a, b) => b.count - a.count || a.displayName.localeCompare(b.displayName)),
      tags: structure.tags.map((t) => ({
        tagId: t.documentId,
        name: t.name,
        color: t.color,
        count: byTag.get(t.id) ?? 0,
      })),
      createdByDay,
    };
  });
}

export async function aggregateCards(
  ctx: TenantContext,
  boardId: string,
  query: { filters?: Record<string, unknown>; field: string; fn: string; groupBy?: string },
) {
  return ctx.transaction(async (tx) => {
    const scope = await openBoard(tx, ctx, boardId, false);
    const { structure } = scope;
    const where = compileFilters(cardModelFor(structure), query.filters ?? {});
    const bad = (path: string, message: string) =>
      validationError(`${path}: ${message}`, [{ path: [path], message, name: 'ValidationError' }]);
    let expr: SQL | null;
    const field = query.field === 'value' ? undefined : structure.fieldsBySlug.get(query.field);
    if (query.field === 'value') expr = repo.valueExpr();
    else if (!field) throw bad('field', `no field ${query.field}; use value or a field slug`);
    else if (field.type === 'number' || field.type === 'currency')
      expr = repo.numericFieldExpr(field.documentId);
    else if (query.fn === 'count') expr = repo.filledFieldExpr(field.documentId);
    else
      throw bad('fn', `${query.fn} needs value or a number/currency field; ${field.slug} is ${field.type}`);

    let group: repo.GroupKind = null;
    let groupField: typeof field;
    if (query.groupBy === 'phase' || query.groupBy === 'assignee' || query.groupBy === 'tag')
      group = query.groupBy;
    else if (query.groupBy !== undefined) {
      groupField = structure.fieldsBySlug.get(query.groupBy);
      if (!groupField || (groupField.type !== 'select' && groupField.type !== 'radio'))
        throw bad('groupBy', 'use phase, assignee, tag or the slug of a select/radio field');
      group = 'field';
    }
    const result = await repo.aggregateCards(tx, ctx.orgId, structure.board.id, where, scope.visibility, {
      expr,
      fn: query.fn,
      group,
      fieldKey: groupField?.documentId,
    });
    const labels = await groupLabels(
      tx,
      ctx.orgId,
      structure,
      group,
      result.groups.map((g) => g.key),
    );
    return {
      field: query.field,
      fn: query.fn as 'count',
      groupBy: query.groupBy ?? null,
      value: result.value,
      count: result.count,
      groups: result.groups.map((g) => {
        const label = labels(g.key);
        return { key: label.key, label: label.label, value: g.value, count: g.count };
      }),
    };
  });

  async function groupLabels(
    tx: Tx,
    orgId: number,
    structure: BoardStructure,
    group: repo.GroupKind,
    keys: (string | number | null)[],
  ): Promise<(k: string | number | null) => { key: string | null; label: string | null }> {
    const none = { key: null, label: null };
    if (group === 'phase')
      return (k) => {
        const p = k === null ? undefined : structure.phasesById.get(Number(k));
        return p ? { key: p.documentId, label: p.name } : none;
      };
    if (group === 'tag') {
      const byId = new Map(structure.tags.map((t) => [t.id, t]));
      return (k) => {
        const t = k === null ? undefined : byId.get(Number(k));
        return t ? { key: t.documentId, label: t.name } : none;
      };
    }
    if (group === 'assignee') {
      const names = await repo.membershipNames(
        tx,
        orgId,
        keys.flatMap((k) => (k === null ? [] : [Number(k)])),
      );
      return (k) => {
        const m = k === null ? undefined : names.get(Number(k));
        return m ? { key: m.documentId, label: m.username } : none;
      };
    }
    const field = structure.fieldsBySlug.get(query.groupBy!)!;
    return (k) => (k === null ? none : { key: String(k), label: optionLabel(field, String(k)) });
  }
}
