import type { Config } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import { commitWithNext, type Tx } from '../../platform/db/client.js';
import { validationError } from '../../platform/http/errors.js';
import {
  compileListQuery,
  compilePopulate,
  type ListQueryInput,
  listPage,
} from '../../platform/http/list-query.js';
import { iso, isoRequired, type MembershipRef } from '../../platform/http/schemas.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import type { BoardRow, BoardStructure } from '../boards/index.js';
import { contactRefsByIds } from '../contacts/index.js';
import { withSavedFilter } from '../saved-filters/index.js';
import { requireCardEdit } from './access.js';
import { loadCard, openBoard, structureOf } from './board-scope.js';
import { countsOf, foldSometimes } from './counts.js';
import { cardDeleted } from './events.js';
import { readFieldData, readFields, type StoredFields } from './fields.js';
import { removingFiles } from './files.js';
import { type Actor, justCreated } from './insert.js';
import { createCardIn, findPhase, unknownPhase } from './prepare.js';
import { cardModelFor, countsScope, pinnedPhase } from './query-model.js';
import * as repo from './repo.js';
import type { Card, CardCreateInput, CardListQuery, CardUpdateInput } from './schema.js';
import { titleSearchOf, titleSearchStats } from './title-search.js';
import { applyUpdate, type UpdateOptions } from './update.js';

/**
 * The cards themselves: list, read, create, update, move, delete. Their comments are comments.ts, the board report
 * and aggregate report.ts, the public entry form public-form.ts; the checks of a new card prepare.ts, of a change
 * update.ts.
 */

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
  board: BoardRow,
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
  board: BoardRow,
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
