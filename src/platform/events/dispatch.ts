import { sql } from 'drizzle-orm';
import { type Database, queryRows, type Tx } from '../db/client.js';
import { ownOrganizations } from '../db/namespace.js';

/** An undispatched event as its consumers see it. */
export interface PendingEvent {
  id: number;
  eventId: string;
  type: string;
  subject: string;
  data: Record<string, unknown>;
  depth: number;
  createdAt: Date;
}

/**
 * A consumer turns a batch of one organization's events (in id order) into its own durable work rows (webhook
 * deliveries, automation runs), inside the dispatcher's transaction: the rows exist exactly when the events are
 * dispatched (their domain_events_pending rows deleted), so every event reaches every consumer once, also across a
 * crash.
 */
export type EventConsumer = (tx: Tx, orgId: number, events: PendingEvent[]) => Promise<void>;

/**
 * Fans undispatched events out to the consumers, oldest-waiting organizations first, one transaction per
 * organization; two dispatchers (several worker processes, woken by the same commit) take an organization in
 * turn (advisory lock) and never the same event.
 */
export async function dispatchEvents(db: Database, consumers: EventConsumer[]): Promise<number> {
  const orgs = await queryRows<{ organization_id: number }>(
    db.system,
    // Oldest waiting first, so a busy organization never starves the others. The organizations are found by
    // skipping through the primary key, one probe each, and each one's oldest event by another: a scan of the
    // table would read the dead rows of every event dispatched since the last VACUUM (a million-row import leaves
    // hundreds of thousands between two maintenance runs: 270 ms a pass, measured).
    sql`with recursive o(organization_id) as (
          (select organization_id from domain_events_pending order by organization_id limit 1)
          union all
          select (select p.organization_id from domain_events_pending p
                  where p.organization_id > o.organization_id order by p.organization_id limit 1)
          from o where o.organization_id is not null
        )
        select o.organization_id from o
        where o.organization_id is not null ${ownOrganizations(db, sql`o.organization_id`)}
        order by (select min(p.id) from domain_events_pending p where p.organization_id = o.organization_id)
        limit 200`,
  );
  let total = 0;
  for (const { organization_id: orgId } of orgs) {
    // A busy organization (an import) gets a few full batches per pass, not one: the pass's lookup of the
    // organizations is then made once per few thousand events, and the others wait at most that long.
    for (let i = 0; i < BATCHES_PER_PASS; i++) {
      // One organization's failure (logged) never holds the others back.
      const n = await dispatchOrganization(db, Number(orgId), consumers).catch((err) => {
        console.error(`events: dispatch of organization ${orgId} failed: ${(err as Error).message}`);
        return 0;
      });
      total += n;
      if (n < DISPATCH_BATCH) break;
    }
  }
  return total;
}

/** Events handed to the consumers per transaction. */
const DISPATCH_BATCH = 500;
/** Full batches of one organization per dispatch pass. */
const BATCHES_PER_PASS = 8;

export async function dispatchOrganization(
  db: Database,
  orgId: number,
  consumers: EventConsumer[],
): Promise<number> {
  return db.tenantTransaction(orgId, async (tx) => {
    // Dispatchers of several worker processes take an organization's events one after the other, in id order
    // (the consumers' rows then follow the events' order).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`events-dispatch:${orgId}`}, 0))`);
    // A pending row whose event is gone (its organization's data erased meanwhile) is dropped with the others.
    const rows = await queryRows<{
      id: number;
      event_id: string | null;
      type: string;
      subject: string;
      data: Record<string, unknown>;
      depth: number;
      created_at: Date;
    }>(
      tx,
      sql`select p.id, e.event_id, e.type, e.subject, e.data, e.depth, e.created_at
            from domain_events_pending p
            left join domain_events e on e.organization_id = p.organization_id and e.id = p.id
            where p.organization_id = ${orgId} order by p.id limit ${DISPATCH_BATCH} for update of p skip locked`,
    );
    if (rows.length === 0) return 0;
    const events: PendingEvent[] = rows.flatMap((r) =>
      r.event_id === null
        ? []
        : [
            {
              id: Number(r.id),
              eventId: r.event_id,
              type: r.type,
              subject: r.subject,
              data: r.data,
              depth: Number(r.depth),
              createdAt: new Date(r.created_at),
            },
          ],
    );
    if (events.length) for (const consume of consumers) await consume(tx, orgId, events);
    await tx.execute(
      sql`delete from domain_events_pending
          where organization_id = ${orgId} and id = any(${`{${rows.map((r) => r.id).join(',')}}`}::bigint[])`,
    );
    return rows.length;
  });
}
