import { and, eq, sql } from 'drizzle-orm';
import { type Database, queryRows, type Tx } from '../db/client.js';
import { ownOrganizations } from '../db/namespace.js';
import { domainEvents } from './table.js';

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
 * marked dispatched, so every event reaches every consumer once, also across a crash.
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
    // Oldest waiting first, so a busy organization never starves the others.
    sql`select organization_id from domain_events where not dispatched ${ownOrganizations(db, sql`organization_id`)}
        group by organization_id order by min(id) limit 200`,
  );
  let total = 0;
  for (const { organization_id: orgId } of orgs) {
    // One organization's failure (logged) never holds the others back.
    total += await dispatchOrganization(db, Number(orgId), consumers).catch((err) => {
      console.error(`events: dispatch of organization ${orgId} failed: ${(err as Error).message}`);
      return 0;
    });
  }
  return total;
}

export async function dispatchOrganization(
  db: Database,
  orgId: number,
  consumers: EventConsumer[],
): Promise<number> {
  return db.tenantTransaction(orgId, async (tx) => {
    // Dispatchers of several worker processes take an organization's events one after the other, in id order
    // (the consumers' rows then follow the events' order).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`events-dispatch:${orgId}`}, 0))`);
    const rows = await queryRows<{
      id: number;
      event_id: string;
      type: string;
      subject: string;
      data: Record<string, unknown>;
      depth: number;
      created_at: Date;
    }>(
      tx,
      sql`select id, event_id, type, subject, data, depth, created_at from domain_events
            where organization_id = ${orgId} and not dispatched order by id limit 500 for update skip locked`,
    );
    if (rows.length === 0) return 0;
    const events: PendingEvent[] = rows.map((r) => ({
      id: Number(r.id),
      eventId: r.event_id,
      type: r.type,
      subject: r.subject,
      data: r.data,
      depth: Number(r.depth),
      createdAt: new Date(r.created_at),
    }));
    for (const consume of consumers) await consume(tx, orgId, events);
    await tx
      .update(domainEvents)
      .set({ dispatched: true })
      .where(
        and(eq(domainEvents.organizationId, orgId), sql`${domainEvents.id} in ${events.map((e) => e.id)}`),
      );
    return events.length;
  });
}
