import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../platform/db/client.js';

/** How far back the demo's history goes (issue 31 item 5: the report's series, conversion and time in phase). */
export const HISTORY_DAYS = 90;

/**
 * Spreads the demo board's cards over the last HISTORY_DAYS days, after the services created them today: each
 * card is born on a day of its own (deterministic: from its id), entered its current phase between its birth and
 * today (the first phase: at birth), and its history comments move with it, in their order. The board itself
 * dates from before the first card, so the report's default range (from the board's creation) covers them all.
 * The card counts and report rollups follow by their own update triggers (a changed created day is counted out
 * of the old day and into the new one).
 */
export async function spreadDemoHistory(tx: Tx, orgId: number, boardDocumentId: string): Promise<void> {
  const [{ id: boardId }] = await queryRows<{ id: number }>(
    tx,
    sql`select id::int as id from boards where organization_id = ${orgId} and document_id = ${boardDocumentId}`,
  );
  await tx.execute(
    sql`update boards set created_at = now() - make_interval(days => ${HISTORY_DAYS + 1}::int)
        where organization_id = ${orgId} and id = ${boardId}`,
  );
  await tx.execute(sql`
    with born as (
      select c.id, now() - make_interval(days => (1 + (c.id * 7919) % ${HISTORY_DAYS - 1})::int, hours => ((c.id * 13) % 9)::int)
               as at,
             p."order" = (select min("order") from phases where organization_id = ${orgId} and board_id = ${boardId})
               as first
      from cards c join phases p on p.organization_id = c.organization_id and p.id = c.current_phase_id
      where c.organization_id = ${orgId} and c.board_id = ${boardId}
    )
    update cards c
    set created_at = b.at,
        updated_at = now() - (now() - b.at) * 0.1,
        current_phase_entered_at = case when b.first then b.at else b.at + (now() - b.at) * (0.3 + (c.id % 5) / 10.0) end
    from born b
    where c.organization_id = ${orgId} and c.id = b.id`);
  await tx.execute(sql`
    with h as (
      select m.id, c.created_at + (c.current_phase_entered_at - c.created_at)
               * (row_number() over (partition by m.card_id order by m.id) - 1)
               / greatest(count(*) over (partition by m.card_id) - 1, 1) as at
      from comments m join cards c on c.organization_id = m.organization_id and c.id = m.card_id
      where m.organization_id = ${orgId} and c.board_id = ${boardId}
    )
    update comments m set created_at = h.at, updated_at = h.at
    from h where m.organization_id = ${orgId} and m.id = h.id`);
}
