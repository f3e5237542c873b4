import type { Tx } from '../../platform/db/client.js';
import { recordEvent, recordEvents } from '../../platform/events/outbox.js';
import type { BoardStructure, PhaseStructure } from '../boards/index.js';
import type * as repo from './repo.js';

/** The card as events carry it: enough to act on without a read back (ids, title, value, board, phase). */
function cardData(structure: BoardStructure, row: repo.CardRow) {
  const phase = row.currentPhaseId === null ? undefined : structure.phasesById.get(row.currentPhaseId);
  return {
    documentId: row.documentId,
    title: row.title,
    value: Number(row.value),
    board: { documentId: structure.board.documentId, name: structure.board.name },
    phase: phase ? { documentId: phase.documentId, name: phase.name, slug: phase.slug } : null,
  };
}

const subject = (row: repo.CardRow) => `card:${row.documentId}`;

/** `card.created` for new cards of one board: one statement. */
export async function cardsCreated(tx: Tx, orgId: number, structure: BoardStructure, rows: repo.CardRow[]) {
  await recordEvents(
    tx,
    orgId,
    rows.map((row) => ({
      type: 'card.created' as const,
      subject: subject(row),
      data: { card: cardData(structure, row) },
    })),
  );
}

/**
 * After an update: `card.updated` naming what changed (other than the phase), `card.phase_changed` for a move,
 * and `card.won` / `card.lost` when the move reached the board's won or lost phase.
 */
export async function cardChanged(
  tx: Tx,
  orgId: number,
  structure: BoardStructure,
  row: repo.CardRow,
  changes: string[],
  moved?: { from: PhaseStructure | undefined; to: PhaseStructure },
) {
  const card = cardData(structure, row);
  const others = changes.filter((c) => c !== 'phase_changed');
  if (others.length) await recordEvent(tx, orgId, 'card.updated', subject(row), { card, changes: others });
  if (!moved) return;
  const ref = (p: PhaseStructure | undefined) =>
    p ? { documentId: p.documentId, name: p.name, slug: p.slug } : null;
  await recordEvent(tx, orgId, 'card.phase_changed', subject(row), {
    card,
    from: ref(moved.from),
    to: ref(moved.to),
  });
  if (moved.to.id === structure.settings.wonPhaseId)
    await recordEvent(tx, orgId, 'card.won', subject(row), { card });
  if (moved.to.id === structure.settings.lostPhaseId)
    await recordEvent(tx, orgId, 'card.lost', subject(row), { card });
}

export async function cardDeleted(tx: Tx, orgId: number, structure: BoardStructure, row: repo.CardRow) {
  await recordEvent(tx, orgId, 'card.deleted', subject(row), { card: cardData(structure, row) });
}
