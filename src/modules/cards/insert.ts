import type { Tx } from '../../platform/db/client.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import type { BoardStructure } from '../boards/index.js';
import { recordContactActivity } from '../contacts/index.js';
import { nextAssignee } from '../distribution/index.js';
import type { CommentValues } from './comments-repo.js';
import { foldSometimes } from './counts.js';
import { cardsCreated } from './events.js';
import * as repo from './repo.js';

/**
 * The write end of card creation: cards already checked (prepare.ts prepareCard) go in, several of one board in one
 * statement. Every new card passes here (the API, the public form, chats, lead ads).
 */

/** Who writes: a member through the API, or nobody (the public form, an inbound chat or lead). */
export interface Actor {
  orgId: number;
  membershipId: number | null;
  ctx: TenantContext | null;
}

/** A new card checked under createCard's rules, ready to insert. */
export interface PreparedCard {
  values: repo.CardValues;
  assigneeIds: number[];
  tagIds: number[];
  history: CommentValues;
  attach: number[];
}

/**
 * Cards this request just created without assignees: their relations are known (their tags, ascending, as
 * relationsByCard orders them), so the response needs no read-back.
 */
export const justCreated = new WeakMap<repo.CardRow, { tagIds: number[] }>();

export const cardMeta = (structure: BoardStructure, row: repo.CardRow) => ({
  card: { documentId: row.documentId, title: row.title },
  board: { documentId: structure.board.documentId, name: structure.board.name },
});

/**
 * Prepared cards of one board, rows in their order: the ones created unassigned go to the board's distribution
 * queue, if it has one (docs/distribution.md), then all are inserted with their assignees, tags and history comments
 * in ONE statement (the counts and report rollups follow from the tables' statement triggers) and their
 * `card.created` events in one more.
 */
export async function insertCards(
  tx: Tx,
  actor: Actor,
  structure: BoardStructure,
  cards: PreparedCard[],
): Promise<repo.CardRow[]> {
  if (cards.length === 0) return [];
  const orgId = actor.orgId;
  const boardId = structure.board.id;
  const assignees: number[][] = [];
  // Card by card (the queue row stays locked meanwhile); a queue with nobody to give has nobody for the rest. A
  // board read without an active queue in this transaction asks for none (a queue turned on meanwhile is as if
  // turned on after the card was made).
  let queue = structure.queued ?? true;
  for (const card of cards) {
    const next = queue && card.assigneeIds.length === 0 ? await nextAssignee(tx, orgId, boardId) : undefined;
    if (card.assigneeIds.length === 0 && next === undefined) queue = false;
    assignees.push(next === undefined ? card.assigneeIds : [next]);
  }
  const rows = await repo.insertCardsWithLinks(
    tx,
    orgId,
    boardId,
    cards.map((card, i) => ({ ...card, assigneeIds: assignees[i] })),
  );
  rows.forEach((row, i) => {
    if (assignees[i].length === 0)
      justCreated.set(row, { tagIds: [...new Set(cards[i].tagIds)].sort((a, b) => a - b) });
  });
  await cardsCreated(tx, orgId, structure, rows);
  // The chance of a fold of one card write, once per card.
  await foldSometimes(tx, orgId, boardId, () => Math.random() / rows.length);
  for (const [i, row] of rows.entries()) {
    await repo.attachFiles(tx, orgId, row.id, cards[i].attach);
    if (row.contactId !== null && actor.ctx)
      await recordContactActivity(
        tx,
        actor.ctx,
        row.contactId,
        'card_created',
        `Card "${row.title}" created`,
        cardMeta(structure, row),
      );
  }
  return rows;
}
