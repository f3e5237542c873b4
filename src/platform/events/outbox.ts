import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { unnestInsertSql } from '../db/bulk-insert.js';
import { deferStatement, type Tx } from '../db/client.js';
import { domainEvents } from './table.js';

/** The event types of DESIGN.md §11 that exist today (the others arrive with their areas). */
export const EVENT_TYPES = [
  'card.created',
  'card.updated',
  'card.phase_changed',
  'card.won',
  'card.lost',
  'card.deleted',
  'contact.created',
  'contact.updated',
  'conversation.created',
  'message.received',
  'task.completed',
  'campaign.completed',
  'lead.received',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Records a domain event in the caller's transaction: committed with the change or not at all, so a crash
 * between commit and delivery loses nothing (the dispatcher finds it) and a rolled-back change emits nothing.
 */
/**
 * The automation depth of the code running now: 0 for a person's or an integration's change, n + 1 inside the
 * actions of an automation run triggered by an event of depth n. Every event recorded meanwhile carries it, so
 * the automations' loop guard (src/modules/automations/fan-out.ts) sees how deep a chain already is.
 */
const depthStore = new AsyncLocalStorage<number>();

export function withEventDepth<T>(depth: number, fn: () => Promise<T>): Promise<T> {
  return depthStore.run(depth, fn);
}

export const currentEventDepth = () => depthStore.getStore() ?? 0;

export async function recordEvent(
  tx: Tx,
  orgId: number,
  type: EventType,
  subject: string,
  data: Record<string, unknown>,
): Promise<void> {
  await recordEvents(tx, orgId, [{ type, subject, data }]);
}

export interface EventInput {
  type: EventType;
  subject: string;
  data: Record<string, unknown>;
}

/**
 * Several events in one statement, in the order given (a batch of an import), in the caller's transaction: the
 * events and their rows in domain_events_pending (what the dispatcher waits on). Nobody reads the insert's answer:
 * it leaves with the transaction's next statement or its commit (deferStatement).
 */
export async function recordEvents(tx: Tx, orgId: number, events: EventInput[]): Promise<void> {
  const depth = currentEventDepth();
  for (let i = 0; i < events.length; i += 1000) {
    const insert = unnestInsertSql(
      domainEvents,
      events.slice(i, i + 1000).map((e) => ({
        organizationId: orgId,
        eventId: `evt_${randomUUID()}`,
        type: e.type,
        subject: e.subject,
        data: e.data,
        depth,
      })),
    );
    await deferStatement(
      tx,
      sql`with ev as (${insert} returning organization_id, id)
        insert into domain_events_pending (organization_id, id) select organization_id, id from ev`,
      // One text whatever the number of events: prepared once per connection.
      true,
    );
  }
}

/**
 * A set-based writer's events (a mass update in one SQL statement): two CTEs for the caller's `with`, named
 * `<name>` (one row per event written) and `<name>_pending`, one event per row of `rows`, a query yielding
 * `subject` (text) and `data` (jsonb) columns. Same rows as recordEvents.
 */
export function insertEventsCtes(name: string, orgId: number, type: EventType, rows: SQL): SQL {
  const id = sql.identifier(name);
  return sql`${id} as (
      insert into domain_events (organization_id, event_id, type, subject, data, depth)
      select ${orgId}::bigint, 'evt_' || gen_random_uuid()::text, ${type}, e.subject, e.data, ${currentEventDepth()}::int
      from (${rows}) e
      returning organization_id, id
    ), ${sql.identifier(`${name}_pending`)} as (
      insert into domain_events_pending (organization_id, id) select organization_id, id from ${id}
    )`;
}
