import { and, asc, eq, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { boards } from '../boards/table.js';
import { cards } from '../cards/table.js';
import { visibleTo as tasksVisibleTo } from '../tasks/index.js';
import { tasks } from '../tasks/table.js';
import { calendarConnections, calendarMeetings } from './table.js';

export type ConnectionRow = typeof calendarConnections.$inferSelect;
export type MeetingRow = typeof calendarMeetings.$inferSelect;
type MeetingValues = Omit<typeof calendarMeetings.$inferInsert, 'organizationId' | 'id'>;

// ---- connections

export async function findConnectionOf(tx: Tx, orgId: number, membershipId: number) {
  const [row] = await tx
    .select()
    .from(calendarConnections)
    .where(
      and(eq(calendarConnections.organizationId, orgId), eq(calendarConnections.membershipId, membershipId)),
    );
  return row as ConnectionRow | undefined;
}

export async function insertConnection(
  tx: Tx,
  orgId: number,
  values: Omit<typeof calendarConnections.$inferInsert, 'organizationId' | 'id'>,
) {
  const [row] = await tx
    .insert(calendarConnections)
    .values({ ...values, organizationId: orgId })
    .returning();
  return row;
}

export async function deleteConnection(tx: Tx, orgId: number, id: number) {
  await tx
    .delete(calendarConnections)
    .where(and(eq(calendarConnections.organizationId, orgId), eq(calendarConnections.id, id)));
}

// ---- meetings

export async function insertMeeting(tx: Tx, orgId: number, values: MeetingValues) {
  const [row] = await tx
    .insert(calendarMeetings)
    .values({ ...values, organizationId: orgId })
    .returning();
  return row;
}

export async function updateMeeting(tx: Tx, orgId: number, id: number, values: Partial<MeetingValues>) {
  const [row] = await tx
    .update(calendarMeetings)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(calendarMeetings.organizationId, orgId), eq(calendarMeetings.id, id)))
    .returning();
  return row;
}

export async function findMeeting(tx: Tx, orgId: number, documentId: string, lock = false) {
  const q = tx
    .select()
    .from(calendarMeetings)
    .where(and(eq(calendarMeetings.organizationId, orgId), eq(calendarMeetings.documentId, documentId)));
  const [row] = lock ? await q.for('update') : await q;
  return row as MeetingRow | undefined;
}

export async function listCardMeetings(tx: Tx, orgId: number, cardId: number) {
  return tx
    .select()
    .from(calendarMeetings)
    .where(and(eq(calendarMeetings.organizationId, orgId), eq(calendarMeetings.cardId, cardId)))
    .orderBy(asc(calendarMeetings.startsAt), asc(calendarMeetings.id));
}

/** A meeting the agenda links a calendar instance to. */
export interface MeetingLinkRow {
  uid: string;
  documentId: string;
  status: string;
  organizerMembershipId: number | null;
  visible: boolean;
}

/**
 * This organization's meetings with these iCalendar UIDs (the agenda links them), whatever their card, each with
 * whether its card is visible to the caller (`cardVisible`: cards/access.ts visibleCardsAcrossBoards, undefined
 * for admins), the rule GET /calendar-meetings/:id applies before it shows a meeting.
 */
export async function meetingsByUid(tx: Tx, orgId: number, uids: string[], cardVisible: SQL | undefined) {
  if (!uids.length) return new Map<string, MeetingLinkRow>();
  const rows = await tx
    .select({
      uid: calendarMeetings.uid,
      documentId: calendarMeetings.documentId,
      status: calendarMeetings.status,
      organizerMembershipId: calendarMeetings.organizerMembershipId,
      // The card always exists (its foreign key cascades): the joins keep every meeting, as before them.
      visible: cardVisible ? sql<boolean>`coalesce(${cardVisible}, false)` : sql<boolean>`true`,
    })
    .from(calendarMeetings)
    .innerJoin(
      cards,
      and(eq(cards.organizationId, calendarMeetings.organizationId), eq(cards.id, calendarMeetings.cardId)),
    )
    .innerJoin(boards, and(eq(boards.organizationId, cards.organizationId), eq(boards.id, cards.boardId)))
    .where(and(eq(calendarMeetings.organizationId, orgId), sql`${calendarMeetings.uid} in ${uids}`));
  return new Map(rows.map((r) => [r.uid, r]));
}

/** The card of a meeting with its board's documentId (for access checks and the response). */
export async function cardsWithBoards(tx: Tx, orgId: number, cardIds: number[]) {
  if (!cardIds.length)
    return new Map<number, { documentId: string; title: string; boardDocumentId: string }>();
  const rows = await tx
    .select({
      id: cards.id,
      documentId: cards.documentId,
      title: cards.title,
      boardDocumentId: boards.documentId,
    })
    .from(cards)
    .innerJoin(boards, and(eq(boards.organizationId, cards.organizationId), eq(boards.id, cards.boardId)))
    .where(and(eq(cards.organizationId, orgId), sql`${cards.id} in ${cardIds}`));
  return new Map(rows.map((r) => [r.id, r]));
}

// ---- agenda sources (each bounded: the window is at most 62 days, and a page of the agenda is not a report)

export const SOURCE_LIMIT = 500;

export async function tasksDueIn(
  tx: Tx,
  orgId: number,
  start: Date,
  end: Date,
  cardVisible: SQL | undefined,
) {
  const where = and(
    eq(tasks.organizationId, orgId),
    isNotNull(tasks.dueDate),
    gte(tasks.dueDate, start),
    lt(tasks.dueDate, end),
    cardVisible && tasksVisibleTo(cardVisible),
  );
  return tx
    .select({ documentId: tasks.documentId, name: tasks.name, dueDate: tasks.dueDate })
    .from(tasks)
    .where(where)
    .orderBy(asc(tasks.dueDate))
    .limit(SOURCE_LIMIT);
}

export async function cardsDueIn(
  tx: Tx,
  orgId: number,
  start: Date,
  end: Date,
  cardVisible: SQL | undefined,
) {
  return tx
    .select({ documentId: cards.documentId, title: cards.title, dueDate: cards.dueDate })
    .from(cards)
    .innerJoin(boards, and(eq(boards.organizationId, cards.organizationId), eq(boards.id, cards.boardId)))
    .where(
      and(
        eq(cards.organizationId, orgId),
        isNotNull(cards.dueDate),
        gte(cards.dueDate, start),
        lt(cards.dueDate, end),
        cardVisible,
      ),
    )
    .orderBy(asc(cards.dueDate))
    .limit(SOURCE_LIMIT);
}
