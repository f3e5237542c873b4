import { and, asc, eq, sql } from 'drizzle-orm';
import type { Plan } from '../../config.js';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import { withEventDepth } from '../../platform/events/outbox.js';
import { onEventsDispatched, Pump } from '../../platform/events/wake.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { type SafeFetch, sharedSafeFetch } from '../../platform/outbound/safe-fetch.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { planFeatures, type Role, type TenantContext } from '../../platform/tenancy/context.js';
import type { WorkerDeps } from '../../workers.js';
import { type ActionEnv, RetryableError, runAction } from './actions.js';
import type { Action, ActionResult } from './schema.js';
import { sealContext } from './service.js';
import { automations, automationRuns as runs } from './table.js';

/** Attempts of a run whose action failed transiently (receiver down); the waits double from 5 s. */
export const MAX_ATTEMPTS = 6;
/** A claimed run is not claimed again for this long (a crashed worker's run is taken over after it). */
const LEASE_MS = 60_000;
const TIMEOUT_MS = 10_000;
/** Runs per record per pass, records in parallel per pass. */
const PER_SUBJECT = 50;
const PARALLEL = 8;

export const automationQueue: QueueDef = { name: 'automations-run', retryLimit: 0 };

type RunRow = typeof runs.$inferSelect;
type AutomationRow = typeof automations.$inferSelect;

/**
 * The oldest pending run of a record, claimed: locked (SKIP LOCKED), its lease moved forward and its attempt
 * counted in the same transaction, so two workers never run it at once and a crashed worker's run is resumed
 * after the lease (its done actions are not repeated: each one's result committed with its change).
 */
async function claim(tx: Tx, orgId: number, subject: string) {
  const [row] = await tx
    .select()
    .from(runs)
    .where(and(eq(runs.organizationId, orgId), eq(runs.subject, subject), eq(runs.status, 'pending')))
    .orderBy(asc(runs.id))
    .limit(1)
    // Not SKIP LOCKED: a second runner (another worker process woken by the same commit) waits for the claim,
    // then finds the head leased, and never runs a later run of the subject before it.
    .for('update');
  if (!row || row.nextAttemptAt.getTime() > Date.now()) return undefined;
  await tx
    .update(runs)
    .set({ nextAttemptAt: new Date(Date.now() + LEASE_MS), attempts: row.attempts + 1 })
    .where(and(eq(runs.organizationId, orgId), eq(runs.id, row.id)));
  const [automation] = await tx
    .select()
    .from(automations)
    .where(and(eq(automations.organizationId, orgId), eq(automations.id, row.automationId)));
  return { run: { ...row, attempts: row.attempts + 1 }, automation };
}

/** Appends one action's result, once: a result already at that index (a retry after a crash) is kept. */
async function appendResult(tx: Tx, orgId: number, runId: number, index: number, result: ActionResult) {
  await tx.execute(
    sql`update automation_runs set results = results || ${JSON.stringify([result])}::jsonb
        where organization_id = ${orgId} and id = ${runId} and jsonb_array_length(results) = ${index}`,
  );
}

/** Replaces one action's result (the outcome of a reserved send). */
async function setResult(tx: Tx, orgId: number, runId: number, index: number, result: ActionResult) {
  await tx.execute(
    sql`update automation_runs set results = jsonb_set(results, ${`{${index}}`}::text[], ${JSON.stringify(result)}::jsonb)
        where organization_id = ${orgId} and id = ${runId}`,
  );
}

async function finish(tx: Tx, orgId: number, runId: number, status: string, message: string | null) {
  await tx
    .update(runs)
    .set({ status, message, finishedAt: status === 'pending' ? null : new Date() })
    .where(and(eq(runs.organizationId, orgId), eq(runs.id, runId)));
}

interface ActorRow {
  user_id: number;
  document_id: string;
  role: string;
  slug: string;
  plan: string;
}
type ActorCache = Map<string, Promise<ActorRow | undefined>>;

/** The automation's admin as a request context: the actions pass the same checks as that person's API calls. */
async function actorContext(
  deps: Pick<WorkerDeps, 'db'>,
  orgId: number,
  membershipId: number,
  onCommit: { hook: ((tx: Tx) => Promise<void>) | null },
  actors: ActorCache,
): Promise<TenantContext | string> {
  // Read once per pass of the runner (runDue) per organization and admin: a pass lasts seconds.
  const key = `${orgId}:${membershipId}`;
  let read = actors.get(key);
  if (!read) {
    read = queryRows<ActorRow>(
      deps.db.system,
      sql`select m.user_id, m.document_id, m.role, o.slug, o.plan from memberships m
          join organizations o on o.id = m.organization_id
          where m.organization_id = ${orgId} and m.id = ${membershipId}`,
    ).then((rows) => rows[0]);
    actors.set(key, read);
    read.catch(() => actors.delete(key));
  }
  const m = await read;
  if (!m) return 'the admin who saved this automation is no longer a member: save it again';
  if (!planFeatures[m.plan as Plan]?.includes('automations'))
    return `the ${m.plan} plan does not include the automations feature`;
  return {
    orgId,
    orgSlug: m.slug,
    plan: m.plan as Plan,
    userId: Number(m.user_id),
    membershipId,
    membershipDocumentId: m.document_id,
    role: m.role as Role,
    scopes: null,
    idempotency: null,
    dryRun: false,
    transaction: (fn) =>
      deps.db.tenantTransaction(orgId, async (tx) => {
        const result = await fn(tx);
        const hook = onCommit.hook;
        onCommit.hook = null;
        if (hook) await hook(tx);
        return result;
      }),
  };
}

/** Runs one claimed run's remaining actions; returns false when it waits for a retry (later runs wait too). */
async function execute(
  deps: Pick<WorkerDeps, 'db' | 'config' | 'jobs'>,
  fetch: SafeFetch,
  secretOf: (a: AutomationRow) => string,
  orgId: number,
  run: RunRow,
  automation: AutomationRow | undefined,
  actors: ActorCache = new Map(),
): Promise<boolean> {
  const { db } = deps;
  if (!automation?.enabled) {
    await db.tenantTransaction(orgId, (tx) =>
      finish(tx, orgId, run.id, 'skipped', 'the automation is disabled'),
    );
    return true;
  }
  const onCommit: { hook: ((tx: Tx) => Promise<void>) | null } = { hook: null };
  const ctx = await actorContext(deps, orgId, automation.actorMembershipId, onCommit, actors);
  if (typeof ctx === 'string') {
    await db.tenantTransaction(orgId, (tx) => finish(tx, orgId, run.id, 'failed', ctx));
    return true;
  }
  const actions = automation.actions as Action[];
  const results = [...(run.results as ActionResult[])];
  const event = run.event as ActionEnv['event'];
  // Recorded with the run's end: a crash before it runs the last action again (an http_request may repeat
  // with the same webhook-id; a card or task change recorded its result in its own transaction, the arm hook).
  let last: { index: number; result: ActionResult; reserved: boolean } | undefined;
  for (let i = results.length; i < actions.length; i++) {
    const a = actions[i];
    let reserved = false;
    const env: ActionEnv = {
      db,
      config: deps.config,
      jobs: deps.jobs,
      fetch,
      ctx,
      event,
      secret: secretOf(automation),
      messageId: `${run.eventId}.${automation.documentId}.${i}`,
      // The change and its result commit together: a retry never repeats a done card or task change.
      reserve: async () => {
        reserved = true;
        await db.tenantTransaction(orgId, (tx) =>
          appendResult(tx, orgId, run.id, i, {
            type: a.type,
            ok: false,
            message: 'interrupted while sending: outcome unknown, not sent again',
          }),
        );
      },
      arm: (planned) => {
        onCommit.hook = (tx) =>
          appendResult(tx, orgId, run.id, i, { type: a.type, ok: true, message: null, output: planned });
      },
    };
    try {
      // Every event the action causes carries depth + 1 (the loop guard, fan-out.ts).
      const output = await withEventDepth(run.depth + 1, () => runAction(env, a));
      onCommit.hook = null;
      // Actions without a transaction of their own (http_request, sends) record here.
      const ok = { type: a.type, ok: true, message: null, output };
      // The last action's result commits with the run's end (one transaction less per run).
      if (i === actions.length - 1) last = { index: i, result: ok, reserved };
      else
        await db.tenantTransaction(orgId, (tx) =>
          reserved ? setResult(tx, orgId, run.id, i, ok) : appendResult(tx, orgId, run.id, i, ok),
        );
      results.push({ type: a.type, ok: true, message: null, output });
    } catch (err) {
      onCommit.hook = null;
      const message = ((err as Error).message || String(err)).slice(0, 500);
      if (err instanceof RetryableError && !reserved && run.attempts < MAX_ATTEMPTS) {
        const wait = 5_000 * 2 ** (run.attempts - 1);
        await db.tenantTransaction(orgId, async (tx) => {
          await tx
            .update(runs)
            .set({
              nextAttemptAt: new Date(Date.now() + wait),
              message: `${a.type}: ${message} (will retry)`,
            })
            .where(and(eq(runs.organizationId, orgId), eq(runs.id, run.id)));
        });
        return false;
      }
      const result = { type: a.type, ok: false, message };
      if (i === actions.length - 1) last = { index: i, result, reserved };
      else
        await db.tenantTransaction(orgId, (tx) =>
          reserved ? setResult(tx, orgId, run.id, i, result) : appendResult(tx, orgId, run.id, i, result),
        );
      results.push(result);
    }
  }
  const failed = results.filter((r) => !r.ok).length;
  await db.tenantTransaction(orgId, async (tx) => {
    if (last)
      await (last.reserved
        ? setResult(tx, orgId, run.id, last.index, last.result)
        : appendResult(tx, orgId, run.id, last.index, last.result));
    await finish(
      tx,
      orgId,
      run.id,
      failed ? 'failed' : 'succeeded',
      failed ? `${failed} of ${results.length} actions failed` : null,
    );
  });
  return true;
}

/**
 * Executes the due runs: records in parallel, the runs of one record in event order (a run waiting for its
 * retry holds the record's later runs back). At least once across a crash; each card or task change exactly
 * once (its result commits with it); an http_request may repeat with the same webhook-id.
 */
export async function runDue(
  deps: Pick<WorkerDeps, 'db' | 'config' | 'jobs'>,
  fetchImpl?: SafeFetch,
  onlyOrgs?: Set<number>,
): Promise<number> {
  const { db } = deps;
  const fetch =
    fetchImpl ??
    sharedSafeFetch(deps.config.CRM_OUTBOUND_ALLOWLIST, {
      timeoutMs: TIMEOUT_MS,
      maxResponseBytes: 64 * 1024,
    });
  const heads = (
    await queryRows<{ organization_id: number; subject: string }>(
      db.system,
      sql`select distinct on (organization_id, subject) organization_id, subject, next_attempt_at
          from automation_runs where status = 'pending' ${ownOrganizations(db, sql`organization_id`)}
          order by organization_id, subject, id limit 1000`,
    )
  ).filter((h) => !onlyOrgs || onlyOrgs.has(Number(h.organization_id)));
  const box = await secretBox(deps.config, db);
  const secretOf = (a: AutomationRow) =>
    box.decrypt(a.secretSealed, sealContext(a.organizationId, a.documentId));
  let done = 0;
  const actors: ActorCache = new Map();
  for (let i = 0; i < heads.length; i += PARALLEL) {
    const counts = await Promise.all(
      heads.slice(i, i + PARALLEL).map(async (h) => {
        const orgId = Number(h.organization_id);
        let n = 0;
        for (let k = 0; k < PER_SUBJECT; k++) {
          const claimed = await db.tenantTransaction(orgId, (tx) => claim(tx, orgId, h.subject));
          if (!claimed) break;
          n++;
          const onward = await execute(
            deps,
            fetch,
            secretOf,
            orgId,
            claimed.run,
            claimed.automation,
            actors,
          ).catch((err) => {
            console.error(`automations: run ${claimed.run.id} failed: ${(err as Error).message}`);
            return false;
          });
          if (!onward) break;
        }
        return n;
      }),
    );
    done += counts.reduce((a, b) => a + b, 0);
  }
  return done;
}

/**
 * The runner: woken in process when the dispatcher fanned events out (src/platform/events/wake.ts), and about
 * every second as a periodic job (one worker process of the cluster at a time) for retries and waits that became
 * due; both through one pump, which keeps going while there is work (up to 5 s).
 */
export async function registerAutomationWorkers(deps: WorkerDeps) {
  const pump = new Pump('automations: run', () => runDue(deps));
  let woken = false;
  await deps.jobs.every(automationQueue, 1, async () => {
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
