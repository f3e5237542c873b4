import { mapInPool } from '../../platform/concurrency.js';
import type { Tx } from '../../platform/db/client.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { EventConsumer } from '../../platform/events/dispatch.js';
import { registerPumpedWorker } from '../../platform/events/pumped-worker.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { type SafeFetch, sharedSafeFetch } from '../../platform/outbound/safe-fetch.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import * as repo from './repo.js';
import { webhookHeaders } from './signing.js';

/** Attempts of one delivery before it is marked failed; the waits double from 5 s (5, 10, 20 … ≈ 21 min). */
export const MAX_ATTEMPTS = 9;
/** Failed attempts in a row after which a subscription is disabled (until enabled again). */
export const DISABLE_AFTER = 15;
const TIMEOUT_MS = 10_000;
/** Deliveries per subscription per run, so one busy endpoint cannot hold the run. */
const PER_RUN = 500;

export const webhookQueue: QueueDef = { name: 'webhooks-dispatch', retryLimit: 0 };

export const sealContext = (orgId: number, documentId: string) =>
  `webhook_subscription:${orgId}:${documentId}`;

/**
 * The webhooks' share of the event dispatch (src/platform/events/dispatch.ts): one delivery row per event and
 * subscription that wants it, written in the dispatcher's transaction.
 */
export const webhookFanOut: EventConsumer = async (tx, orgId, events) => {
  const wanted = await repo.enabledSubscriptions(tx, orgId);
  if (wanted.length === 0) return;
  const rows = events.flatMap((e) =>
    wanted
      .filter((s) => s.events.includes(e.type) || s.events.includes('*'))
      .map((s) => ({
        subscriptionId: s.id,
        eventId: e.eventId,
        eventType: e.type,
        subject: e.subject,
        payload: { type: e.type, timestamp: e.createdAt.toISOString(), data: e.data },
      })),
  );
  // In chunks (500 events × many subscriptions would pass an INSERT's parameter limit).
  await repo.insertDeliveries(tx, orgId, rows);
};

interface Due {
  id: number;
  eventId: string;
  subject: string;
  payload: unknown;
  attempts: number;
  nextAttemptAt: Date;
}

/** Deliveries of one subscription claimed together (sent record by record: in order within one record). */
const CLAIM_BATCH = 100;
/** Records of a batch sent at once. */
const RECORDS_AT_ONCE = 16;

/**
 * The subscription's oldest pending deliveries that are due (at most `limit`, stopping at the first one not
 * due: a delivery waiting for its retry holds the later ones back), claimed: locked and their next attempt moved
 * past the requests' timeouts in the same transaction, so a second run (another worker process woken by the
 * same commit, or during a restart) waits for the claim, then finds the head not due: it never sends one twice
 * nor skips ahead. Two statements for the batch.
 */
async function claimHeads(tx: Tx, orgId: number, subscriptionId: number, limit: number): Promise<Due[]> {
  const rows = await repo.lockPendingDeliveries(tx, orgId, subscriptionId, limit);
  const now = Date.now();
  const due: Due[] = [];
  for (const r of rows) {
    if (r.nextAttemptAt.getTime() > now) break;
    due.push(r);
  }
  if (due.length === 0) return due;
  // A record's deliveries go one after another: the lease covers the longest record's timeouts.
  const longest = Math.max(...bySubject(due).map((g) => g.length));
  await repo.setNextAttempt(
    tx,
    orgId,
    due.map((d) => d.id),
    new Date(now + (longest + 1) * TIMEOUT_MS),
  );
  return due;
}

/** The batch's deliveries grouped by record, each group in event order. */
function bySubject(due: Due[]): Due[][] {
  const groups = new Map<string, Due[]>();
  for (const d of due) {
    const key = d.subject || d.eventId; // a row without a record: on its own
    const g = groups.get(key);
    if (g) g.push(d);
    else groups.set(key, [d]);
  }
  return [...groups.values()];
}

/**
 * Sends what is due, subscription by subscription (subscriptions in parallel; within one, records in parallel and
 * each record's deliveries in event order: a delivery that fails holds its record's later ones back, and its
 * retry holds the subscription's later batches back, so a receiver sees each record's events in order). After a
 * failure, one delivery at a time probes the endpoint until one succeeds. At least once: a crash between the POST
 * and its record sends it again with the same webhook-id.
 */
export async function deliverDue(
  // Without metrics (a test driving one pass) the outcomes are not counted.
  deps: Pick<WorkerDeps, 'db' | 'config'> & Partial<Pick<WorkerDeps, 'metrics'>>,
  fetchImpl?: SafeFetch,
): Promise<number> {
  const { db } = deps;
  const send =
    fetchImpl ??
    sharedSafeFetch(deps.config.CRM_OUTBOUND_ALLOWLIST, {
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
    });
  const heads = await repo.subscriptionsWithDueHeads(db);
  const box = await secretBox(deps.config, db);
  const counts = await Promise.all(
    heads.map(async ({ organization_id, subscription_id }) => {
      const orgId = Number(organization_id);
      const subscriptionId = Number(subscription_id);
      let sent = 0;
      while (sent < PER_RUN) {
        const found = await db.tenantTransaction(orgId, async (tx) => {
          const sub = await repo.findSubscriptionById(tx, orgId, subscriptionId);
          // Failing: one delivery probes the endpoint (a batch would multiply the failures).
          const limit = sub?.consecutiveFailures ? 1 : Math.min(CLAIM_BATCH, PER_RUN - sent);
          const heads = sub?.enabled ? await claimHeads(tx, orgId, subscriptionId, limit) : [];
          return sub && heads.length ? { sub, heads } : undefined;
        });
        if (!found) break;
        const { sub, heads } = found;
        const secret = box.decrypt(sub.secretSealed, sealContext(orgId, sub.documentId));
        const outcomes: Outcome[] = [];
        await mapInPool(bySubject(heads), RECORDS_AT_ONCE, async (group) => {
          const mine: Outcome[] = [];
          for (const head of group) {
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
            outcomes.push({ head, status, error });
            mine.push({ head, status, error });
            if (error) break; // its retry waits: the record's later deliveries wait behind it
          }
          // This record's successes are recorded as soon as its deliveries are done, not with the whole batch: a
          // worker killed mid-batch re-sends only what was in flight (at least once, fewer duplicates). The batch's
          // record below writes them again (the same values) with the rest.
          const ok = mine.filter((o) => !o.error);
          if (ok.length > 0)
            await db
              .tenantTransaction(orgId, (tx) => repo.markDelivered(tx, orgId, ok.map(deliveredRow)))
              .catch(() => {});
        });
        // The batch's outcomes in one transaction; the claimed ones not sent (behind a failure) are due again.
        const done = new Set(outcomes.map((o) => o.head.id));
        await db.tenantTransaction(orgId, (tx) =>
          record(
            tx,
            orgId,
            sub,
            outcomes,
            heads.filter((h) => !done.has(h.id)),
          ),
        );
        for (const o of outcomes)
          deps.metrics?.webhookDeliveries(
            !o.error ? 'delivered' : o.head.attempts + 1 >= MAX_ATTEMPTS ? 'failed' : 'retry',
          );
        sent += outcomes.length;
        if (outcomes.some((o) => o.error)) break;
      }
      return sent;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

interface Outcome {
  head: Due;
  status: number | null;
  error: string | null;
}

const deliveredRow = (o: Outcome) => ({ id: o.head.id, attempts: o.head.attempts + 1, status: o.status });

/**
 * A claimed batch's outcomes, one statement each for the successes, the failures (each waits for its retry) and
 * the unsent; a batch with a failure counts one failed attempt of the subscription (zero before it when another
 * delivery of the batch succeeded).
 */
async function record(
  tx: Tx,
  orgId: number,
  sub: { id: number; consecutiveFailures: number },
  outcomes: Outcome[],
  unsent: Due[],
) {
  const ok = outcomes.filter((o) => !o.error);
  if (ok.length > 0) await repo.markDelivered(tx, orgId, ok.map(deliveredRow));
  if (unsent.length > 0)
    await repo.setNextAttempt(
      tx,
      orgId,
      unsent.map((d) => d.id),
      new Date(),
    );
  const failed = outcomes.filter((o) => o.error);
  if (failed.length === 0) {
    if (sub.consecutiveFailures !== 0) await repo.resetFailures(tx, orgId, sub.id);
    return;
  }
  await repo.markFailed(
    tx,
    orgId,
    failed.map((o) => {
      const attempts = o.head.attempts + 1;
      return {
        id: o.head.id,
        attempts,
        status: attempts >= MAX_ATTEMPTS ? 'failed' : 'pending',
        code: o.status,
        error: o.error,
        next: new Date(Date.now() + 5_000 * 2 ** (attempts - 1)).toISOString(),
      };
    }),
  );
  // A success in the batch ended the previous run of failures.
  await repo.countFailure(tx, orgId, sub.id, ok.length > 0, DISABLE_AFTER, failed[failed.length - 1].error!);
}

/**
 * The delivery run: woken when the dispatcher fanned events out, and about every second for retries that became
 * due (platform/events/pumped-worker.ts).
 */
export function registerWebhookWorkers(deps: WorkerDeps) {
  return registerPumpedWorker(deps, {
    name: 'webhooks: delivery',
    queue: webhookQueue,
    every: 1,
    work: () => deliverDue(deps),
  });
}
