import type { Tx } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import type { BoardStructure } from '../boards/index.js';
import * as boardsRepo from '../boards/index.js';
import { structureOf } from './board-scope.js';
import { type Actor, insertCards, type PreparedCard } from './insert.js';
import { prepareCard } from './prepare.js';

/**
 * Cards from lead ads (the lead-ads module), in the caller's transaction: the board's entry phase, no acting member,
 * `creationSource: lead_ads`, under the rules of the public form (entry-phase fields only, required ones enforced).
 * For a batch of leads the board is read once, each card is checked on its own (a lead that cannot become a card
 * fails alone), and the checked ones go in together.
 */

export interface LeadBoard {
  structure: BoardStructure;
  board: { documentId: string; name: string };
}

const noOne = (orgId: number): Actor => ({ orgId, membershipId: null, ctx: null });

/** The board with its structure; gone, or without an entry phase: a NotFoundError the caller records. */
export async function openLeadBoard(tx: Tx, orgId: number, boardId: number): Promise<LeadBoard> {
  const board = await boardsRepo.findBoardById(tx, orgId, boardId);
  if (!board?.active) throw new AppError('NotFoundError', 'The target board no longer exists');
  const structure = await structureOf(tx, orgId, board);
  if (!structure.entryPhase) throw new AppError('NotFoundError', 'The target board has no entry phase');
  return { structure, board: { documentId: board.documentId, name: board.name } };
}

/** A lead's card checked (a 400 naming the fields it fails on); its title and contact come at insertLeadCards. */
export function checkLeadCard(
  tx: Tx,
  orgId: number,
  target: LeadBoard,
  input: { fields: Record<string, unknown>; tracking: Record<string, string> },
): Promise<PreparedCard> {
  return prepareCard(
    tx,
    noOne(orgId),
    target.structure,
    { fields: input.fields },
    {
      source: 'lead_ads',
      tracking: input.tracking,
      fieldOptions: { phaseIds: new Set([target.structure.entryPhase!.id]) },
    },
  );
}

/**
 * Checked cards of one board with their titles and contacts (matched or made in this transaction: no lookup),
 * inserted together; rows in the order given.
 */
export function insertLeadCards(
  tx: Tx,
  orgId: number,
  target: LeadBoard,
  cards: { card: PreparedCard; title: string; contactId: number }[],
) {
  return insertCards(
    tx,
    noOne(orgId),
    target.structure,
    cards.map(({ card, title, contactId }) => ({ ...card, values: { ...card.values, title, contactId } })),
  );
}
