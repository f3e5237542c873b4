import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import type { EventConsumer } from '../../platform/events/dispatch.js';
import { onEventsDispatched, Pump } from '../../platform/events/wake.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { createSafeFetch, parseAllowlist, type SafeFetch } from '../../platform/outbound/safe-fetch.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import type { WorkerDeps } from '../../workers.js';
import { webhookHeaders } from './signing.js';
import { webhookDeliveries as deliveries, webhookSubscriptions as subs } from './table.js';

/** Attempts of one delivery before it is marked failed; the waits double from 5 s (5, 10, 20 … ≈ 21 min). */
export const MAX_ATTEMPTS = 9;
/** Failed attempts in a row after which a subscription is disabled (until enabled again). */
export const DISABLE_AFTER = 15;
const TIMEOUT_MS = 10_000;
/** Deliveries per subscription per run, so one busy endpoint cannot hold the run. */
const PER_RUN = 50;

export const webhookQueue: QueueDef = { name: 'webhooks-dispatch', retryLimit: 0 };

export const sealContext = (orgId: number, documentId: string) =>
  `webhook_subscription:${orgId}:${documentId}`;

/**
 * The webhooks' share of the event dispatch (src/platform/events/dispatch.ts): one delivery row per event and
 * subscription that wants it, written in the dispatcher's transaction.
 */
export const webhookFanOut: EventConsumer = async (tx, orgId, events) => {
  const wanted = await tx
    .select({ id: subs.id, events: subs.events })
    .from(subs)
    .where(and(eq(subs.organizationId, orgId), eq(subs.enabled, true)));
  if (wanted.length === 0) return;
  const rows = events.flatMap((e) =>
    wanted
      .filter((s) => s.events.includes(e.type) || s.events.includes('*'))
      .map((s) => ({
        organizationId: orgId,
        subscriptionId: s.id,
        eventId: e.eventId,
        eventType: e.type,
        payload: { type: e.type, timestamp: e.createdAt.toISOString(), data: e.data },
      })),
  );
  // In chunks: an INSERT has at most 65,535 parameters (500 events × many subscriptions would pass it).
  for (let i = 0; i < rows.length; i += 1000)
    await tx
      .insert(deliveries)
      .values(rows.slice(i, i + 1000))
      .onConflictDoNothing();
};

interface Due {
  id: number;
  eventId: string;
  payload: unknown;
  attempts: number;
  nextAttemptAt: Date;
}

/**
 * The subscription's oldest pending delivery, claimed: locked and, when due, its next attempt moved past the
 * request's timeout in the same transaction, so a second run (another worker process woken by the same
 * commit, or during a restart) waits for the claim, then finds the head not due: it never sends it twice
 * nor skips ahead of it (event order per subscription).
 */
async function claimHead(tx: Tx, orgId: number, subscriptionId: number): Promise<Due | undefined> {
  const [row] = await tx
    .select({
      id: deliveries.id,
      eventId: deliveries.eventId,
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
    .limit(1)
    .for('update');
  if (!row || row.nextAttemptAt.getTime() > Date.now()) return undefined;
  await tx
    .update(deliveries)
    .set({ nextAttemptAt: new Date(Date.now() + 2 * TIMEOUT_MS) })
    .where(and(eq(deliveries.organizationId, orgId), eq(deliveries.id, row.id)));
  return row;
}

/**
 * Sends what is due, subscription by subscription (in parallel across subscriptions, in event order within
 * one: a delivery waiting for its retry holds the later ones back, so a receiver sees each record's events in
 * order). At least once: a crash between the POST and its record sends it again with the same webhook-id.
 */
export async function deliverDue(
  deps: Pick<WorkerDeps, 'db' | 'config'>,
  fetchImpl?: SafeFetch,
): Promise<number> {
  const { db } = deps;
  const send =
    fetchImpl ??
    createSafeFetch({
      allowlist: parseAllowlist(deps.config.CRM_OUTBOUND_ALLOWLIST),
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
    });
  const heads = await queryRows<{ organization_id: number; subscription_id: number }>(
    db.system,
    sql`select distinct d.organization_id, d.subscription_id from webhook_deliveries d
        join webhook_subscriptions s on s.organization_id = d.organization_id and s.id = d.subscription_id
        where d.status = 'pending' and s.enabled and d.next_attempt_at <= now()
          and not exists (select 1 from webhook_deliveries e
                          where e.organization_id = d.organization_id and e.subscription_id = d.subscription_id
                            and e.status = 'pending' and e.id < d.id)
        limit 500`,
  );
  const box = await secretBox(deps.config, db);
  const counts = await Promise.all(
    heads.map(async ({ organization_id, subscription_id }) => {
      const orgId = Number(organization_id);
      const subscriptionId = Number(subscription_id);
      let sent = 0;
      for (let i = 0; i < PER_RUN; i++) {
        const found = await db.tenantTransaction(orgId, async (tx) => {
          const [sub] = await tx
            .select()
            .from(subs)
            .where(and(eq(subs.organizationId, orgId), eq(subs.id, subscriptionId)));
          const head = sub?.enabled ? await claimHead(tx, orgId, subscriptionId) : undefined;
          return head ? { sub, head } : undefined;
        });
        if (!found) break;
        const { sub, head } = found;
        const secret = box.decrypt(sub.secretSealed, sealContext(orgId, sub.documentId));
        const body = JSON.stringify(head.payload);
        let status: number | null = null;
        let error: string | null = null;
        try {
          const res = await send(sub.url, {
            method: 'POST',
            headers: webhookHeaders(secret, head.eventId, body),
            body,
          });
          status = res.status;
          await res.body?.cancel().catch(() => {});
          if (res.status < 200 || res.status >= 300) error = `HTTP ${res.status}`;
        } catch (err) {
          error = (err as Error).message.slice(0, 500);
        }
        await db.tenantTransaction(orgId, (tx) => record(tx, orgId, sub.id, head, status, error));
        sent++;
        if (error) break; // its retry waits: later deliveries of this subscription wait behind it
      }
      return sent;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function record(
  tx: Tx,
  orgId: number,
  subscriptionId: number,
  head: Due,
  status: number | null,
  error: string | null,
) {
  const attempts = head.attempts + 1;
  const where = and(eq(deliveries.organizationId, orgId), eq(deliveries.id, head.id));
  const subWhere = and(eq(subs.organizationId, orgId), eq(subs.id, subscriptionId));
  if (!error) {
    await tx
      .update(deliveries)
      .set({
        status: 'delivered',
        attempts,
        lastStatusCode: status,
        lastError: null,
        deliveredAt: new Date(),
      })
      .where(where);
    await tx.update(subs).set({ consecutiveFailures: 0 }).where(subWhere);
    return;
  }
  const final = attempts >= MAX_ATTEMPTS;
  await tx
    .update(deliveries)
    .set({
      status: final ? 'failed' : 'pending',
      attempts,
      lastStatusCode: status,
      lastError: error,
      nextAttemptAt: new Date(Date.now() + 5_000 * 2 ** (attempts - 1)),
    })
    .where(where);
  await tx
    .update(subs)
    .set({
      consecutiveFailures: sql`${subs.consecutiveFailures} + 1`,
      enabled: sql`${subs.enabled} and ${subs.consecutiveFailures} + 1 < ${DISABLE_AFTER}`,
      disabledReason: sql`case when ${subs.consecutiveFailures} + 1 >= ${DISABLE_AFTER} then ${`${DISABLE_AFTER} failed attempts in a row; last: ${error}`} else ${subs.disabledReason} end`,
    })
    .where(subWhere);
}

/**
 * The delivery run: woken in process when the dispatcher fanned events out (src/platform/events/wake.ts), and
 * about every second as a periodic job (one worker process of the cluster at a time) for retries that became
 * due; both through one pump. While deliveries keep coming, up to 5 s per run.
 */
export async function registerWebhookWorkers(deps: WorkerDeps) {
  const pump = new Pump('webhooks: delivery', () => deliverDue(deps));
  let woken = false;
  await deps.jobs.every(webhookQueue, 1, async () => {
    if (!woken) {
      woken = true;
      const off = onEventsDispatched(() => pump.kick());
      deps.jobs.onStop(async () => {
        off();
        woken = false;
        await pump.drain();
      });
    }
    await pump.run();
  });
}
