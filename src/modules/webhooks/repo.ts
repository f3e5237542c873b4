import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { type Database, queryRows, type Tx } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { QueryModel } from '../../platform/http/list-query.js';
import { webhookDeliveries as deliveries, webhookSubscriptions as subs } from './table.js';

export const subscriptionModel: QueryModel = {
  table: 'webhook_subscriptions',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    url: { column: 'url', type: 'string' },
    enabled: { column: 'enabled', type: 'boolean' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['secretSealed'],
};

export type SubscriptionRow = typeof subs.$inferSelect;
export type SubscriptionValues = Omit<typeof subs.$inferInsert, 'organizationId' | 'id'>;
type SubscriptionChange = Partial<Omit<SubscriptionValues, 'documentId' | 'updatedAt'>>;
export type DeliveryValues = Omit<typeof deliveries.$inferInsert, 'organizationId' | 'id'>;

const byDocumentId = (orgId: number, documentId: string) =>
  and(eq(subs.organizationId, orgId), eq(subs.documentId, documentId));
const byId = (orgId: number, id: number) => and(eq(subs.organizationId, orgId), eq(subs.id, id));

export async function findSubscription(
  tx: Tx,
  orgId: number,
  documentId: string,
): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.select().from(subs).where(byDocumentId(orgId, documentId));
  return row;
}

export async function findSubscriptionById(
  tx: Tx,
  orgId: number,
  id: number,
): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.select().from(subs).where(byId(orgId, id));
  return row;
}

export async function insertSubscription(tx: Tx, orgId: number, values: SubscriptionValues) {
  const [row] = await tx
    .insert(subs)
    .values({ organizationId: orgId, ...values })
    .returning();
  return row;
}

/** The changed subscription, or undefined when there is none with this documentId. */
export async function updateSubscription(
  tx: Tx,
  orgId: number,
  documentId: string,
  change: SubscriptionChange,
): Promise<SubscriptionRow | undefined> {
  const [row] = await tx
    .update(subs)
    .set({ ...change, updatedAt: sql`now()` })
    .where(byDocumentId(orgId, documentId))
    .returning();
  return row;
}

/** Whether there was one to delete (its deliveries go with it: the foreign key cascades). */
export async function deleteSubscription(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx.delete(subs).where(byDocumentId(orgId, documentId)).returning({ id: subs.id });
  return row !== undefined;
}

/** The delivery log's condition for one subscription (platform/http/table-pages.ts's logPage). */
export const deliveriesOf = (subscriptionId: number) => eq(deliveries.subscriptionId, subscriptionId);

/** The enabled subscriptions and the event types each wants (the fan-out). */
export function enabledSubscriptions(tx: Tx, orgId: number) {
  return tx
    .select({ id: subs.id, events: subs.events })
    .from(subs)
    .where(and(eq(subs.organizationId, orgId), eq(subs.enabled, true)));
}

/** Delivery rows, once per subscription and event (the key): in chunks, an INSERT has at most 65,535 parameters. */
export async function insertDeliveries(tx: Tx, orgId: number, rows: DeliveryValues[]) {
  const values = rows.map((r) => ({ organizationId: orgId, ...r }));
  for (let i = 0; i < values.length; i += 1000)
    await tx
      .insert(deliveries)
      .values(values.slice(i, i + 1000))
      .onConflictDoNothing();
}

/**
 * Across organizations (the system connection, this process's namespace): up to 500 enabled subscriptions whose
 * oldest pending delivery is due.
 */
export function subscriptionsWithDueHeads(db: Database) {
  return queryRows<{ organization_id: number; subscription_id: number }>(
    db.system,
    sql`select distinct d.organization_id, d.subscription_id from webhook_deliveries d
        join webhook_subscriptions s on s.organization_id = d.organization_id and s.id = d.subscription_id
        where d.status = 'pending' and s.enabled and d.next_attempt_at <= now() ${ownOrganizations(db, sql`d.organization_id`)}
          and not exists (select 1 from webhook_deliveries e
                          where e.organization_id = d.organization_id and e.subscription_id = d.subscription_id
                            and e.status = 'pending' and e.id < d.id)
        limit 500`,
  );
}

/** The subscription's oldest pending deliveries (at most `limit`), locked FOR UPDATE. */
export function lockPendingDeliveries(tx: Tx, orgId: number, subscriptionId: number, limit: number) {
  return tx
    .select({
      id: deliveries.id,
      eventId: deliveries.eventId,
      subject: deliveries.subject,
      payload: deliveries.payload,
      attempts: deliveries.attempts,
      nextAttemptAt: deliveries.nextAttemptAt,
    })
    .from(deliveries)
    .where(
      and(
        eq(deliveries.organizationId, orgId),
        eq(deliveries.subscriptionId, subscriptionId),
        eq(deliveries.status, 'pending'),
      ),
    )
    .orderBy(asc(deliveries.id))
    .limit(limit)
    .for('update');
}

/** Moves the deliveries' next attempt to `at` (a claim's lease, or now for the claimed ones not sent). */
export async function setNextAttempt(tx: Tx, orgId: number, ids: number[], at: Date) {
  await tx
    .update(deliveries)
    .set({ nextAttemptAt: at })
    .where(and(eq(deliveries.organizationId, orgId), inArray(deliveries.id, ids)));
}

/** Successes, one statement: `{ id, attempts, status }` each. */
export async function markDelivered(
  tx: Tx,
  orgId: number,
  rows: { id: number; attempts: number; status: number | null }[],
) {
  await tx.execute(sql`update webhook_deliveries d set status = 'delivered', attempts = v.attempts,
        last_status_code = v.status, last_error = null, delivered_at = now()
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(id bigint, attempts integer, status integer)
      where d.organization_id = ${orgId} and d.id = v.id`);
}

/** Failures, one statement: each with its attempts, new status, HTTP code, error and next attempt. */
export async function markFailed(
  tx: Tx,
  orgId: number,
  rows: {
    id: number;
    attempts: number;
    status: 'failed' | 'pending';
    code: number | null;
    error: string | null;
    next: string;
  }[],
) {
  await tx.execute(sql`update webhook_deliveries d set status = v.status, attempts = v.attempts,
      last_status_code = v.code, last_error = v.error, next_attempt_at = v.next
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as v(id bigint, attempts integer, status text, code integer, error text, next timestamptz)
    where d.organization_id = ${orgId} and d.id = v.id`);
}

export async function resetFailures(tx: Tx, orgId: number, subscriptionId: number) {
  await tx.update(subs).set({ consecutiveFailures: 0 }).where(byId(orgId, subscriptionId));
}

/**
 * One more failed attempt in a row (the first of a new run when `afterSuccess`); at `disableAfter` the
 * subscription is disabled, the reason naming `error`.
 */
export async function countFailure(
  tx: Tx,
  orgId: number,
  subscriptionId: number,
  afterSuccess: boolean,
  disableAfter: number,
  error: string,
) {
  const base = afterSuccess ? sql`0` : sql`${subs.consecutiveFailures}`;
  await tx
    .update(subs)
    .set({
      consecutiveFailures: sql`${base} + 1`,
      enabled: sql`${subs.enabled} and ${base} + 1 < ${disableAfter}`,
      disabledReason: sql`case when ${base} + 1 >= ${disableAfter} then ${`${disableAfter} failed attempts in a row; last: ${error}`} else ${subs.disabledReason} end`,
    })
    .where(byId(orgId, subscriptionId));
}
