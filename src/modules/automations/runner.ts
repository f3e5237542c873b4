import { and, eq, sql } from 'drizzle-orm';
import type { Plan } from '../../config.js';
import { mapInPool } from '../../platform/concurrency.js';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import { sqlRowMapper } from '../../platform/db/rows.js';
import type { WorkerDeps } from '../../platform/deps.js';
import { withEventDepth } from '../../platform/events/outbox.js';
import { onEventsDispatched, Pump } from '../../platform/events/wake.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { type SafeFetch, sharedSafeFetch } from '../../platform/outbound/safe-fetch.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { planFeatures, type Role, type TenantContext } from '../../platform/tenancy/context.js';
import { type ActionEnv, RetryableError, runAction } from './actions.js';
import { openHeaders } from './headers.js';
import type { Action, ActionResult } from './schema.js';
import { sealContext } from './service.js';
import { automations, automationRuns as runs } from './table.js';

/** Attempts of a run whose action failed transiently (receiver down); the waits double from 5 s. */
export const MAX_ATTEMPTS = 6;
/** A claimed run is not claimed again for this long (a crashed worker's run is taken over after it). */
const LEASE_MS = 60_000;
const TIMEOUT_MS = 10_000;
/**
 * A claim takes the head run of up to BATCH records (oldest first); they run PARALLEL at a time and end together
 * in one statement; a pass makes at most ROUNDS claims per organization, ORGS_AT_ONCE organizations side by side.
 */
const BATCH = 64;
const PARALLEL = 32;
const ROUNDS = 20;
const ORGS_AT_ONCE = 4;

export const automationQueue: QueueDef = { name: 'automations-run', retryLimit: 0 };

/** Without metrics (a test driving one pass) the outcomes are not counted. */
type RunnerDeps = Pick<WorkerDeps, 'db' | 'config' | 'jobs'> & Partial<Pick<WorkerDeps, 'metrics'>>;
type RunRow = typeof runs.$inferSelect;
type AutomationRow = typeof automations.$inferSelect;
const runRow = sqlRowMapper(runs);
const automationRow = sqlRowMapper(automations);

/**
 * The oldest pending run of each record, claimed (at most `limit`, oldest first across records, only when it is
 * due): locked, its lease moved forward and its attempt counted in one statement, so two workers never run it at
 * once and a crashed worker's run is resumed after the lease (its done actions are not repeated: each one's
 * result committed with its change). Not SKIP LOCKED: a second runner (another worker process woken by the same
 * commit) waits for the claim, then finds the head leased (the lease condition is checked again on the locked
 * row), and never runs a later run of a record before it. The claimed runs come back with their automations.
 */
async function claimHeads(tx: Tx, orgId: number, limit: number) {
  const rows = await queryRows<Record<string, unknown> & { automation: Record<string, unknown> | null }>(
    tx,
    sql`update automation_runs r set next_attempt_at = ${new Date(Date.now() + LEASE_MS)}, attempts = r.attempts + 1
        from (select id, automation_id from (select distinct on (subject) id, automation_id, next_attempt_at
                                             from automation_runs where organization_id = ${orgId} and status = 'pending'
                                             order by subject, id) heads
              where next_attempt_at <= now() order by id limit ${limit}) h
          left join automations a on a.organization_id = ${orgId} and a.id = h.automation_id
        where r.organization_id = ${orgId} and r.id = h.id and r.status = 'pending' and r.next_attempt_at <= now()
        returning ${sql.raw(runRow.columnNames.map((c) => `r.${c}`).join(', '))}, to_jsonb(a) as automation`,
  );
  return rows
    .map((raw) => ({
      run: runRow.map(raw),
      automation: raw.automation ? automationRow.map(raw.automation) : undefined,
    }))
    .sort((a, b) => a.run.id - b.run.id);
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

/** How a run ended: recorded with the other runs of its batch (recordEnds), the last action's result with it. */
interface RunEnd {
  id: number;
  status: 'succeeded' | 'failed' | 'skipped';
  message: string | null;
  last?: { index: number; result: ActionResult; reserved: boolean };
}

/**
 * Runs one claimed run's remaining actions; returns how it ended, or undefined when it waits for a retry (recorded
 * here; later runs of its record wait too).
 */
async function execute(
  deps: RunnerDeps,
  fetch: SafeFetch,
  secretOf: (a: AutomationRow) => string,
  actionsOf: (a: AutomationRow) => Action[],
  orgId: number,
  run: RunRow,
  automation: AutomationRow | undefined,
  actors: ActorCache,
): Promise<RunEnd | undefined> {
  const { db } = deps;
  if (!automation?.enabled) return { id: run.id, status: 'skipped', message: 'the automation is disabled' };
  const onCommit: { hook: ((tx: Tx) => Promise<void>) | null } = { hook: null };
  const ctx = await actorContext(deps, orgId, automation.actorMembershipId, onCommit, actors);
  if (typeof ctx === 'string') return { id: run.id, status: 'failed', message: ctx };
  let actions: Action[];
  try {
    actions = actionsOf(automation);
  } catch {
    // Sealed for another automation (a copied row) or under a key the service no longer has.
    return {
      id: run.id,
      status: 'failed',
      message: 'the http_request header values cannot be opened: save them again',
    };
  }
  const results = [...(run.results as ActionResult[])];
  const event = run.event as ActionEnv['event'];
  // Recorded with the run's end: a crash before it runs the last action again (an http_request may repeat
  // with the same webhook-id; a card or task change recorded its result in its own transaction, the arm hook).
  let last: RunEnd['last'];
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
        deps.metrics?.automationRuns('retry');
        return undefined;
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
  return {
    id: run.id,
    status: failed ? 'failed' : 'succeeded',
    message: failed ? `${failed} of ${results.length} actions failed` : null,
    last,
  };
}

/** The batch's ended runs in one statement: status, message, end time and each one's last action result. */
async function recordEnds(tx: Tx, orgId: number, ends: RunEnd[]) {
  const rows = JSON.stringify(
    ends.map((e) => ({
      id: e.id,
      status: e.status,
      message: e.message,
      idx: e.last?.index ?? null,
      result: e.last?.result ?? null,
      reserved: e.last?.reserved ?? false,
    })),
  );
  // A last result is appended once (a result already at its index, after a crash, is kept), or replaces the
  // outcome a reserved send left.
  await tx.execute(sql`update automation_runs r set
      results = case when v.idx is null then r.results
                     when v.reserved then jsonb_set(r.results, array[v.idx::text], v.result)
                     when jsonb_array_length(r.results) = v.idx then r.results || jsonb_build_array(v.result)
                     else r.results end,
      status = v.status, message = v.message, finished_at = now()
    from jsonb_to_recordset(${rows}::jsonb)
      as v(id bigint, status text, message text, idx integer, result jsonb, reserved boolean)
    where r.organization_id = ${orgId} and r.id = v.id`);
}

/**
 * Executes the due runs: records in parallel, the runs of one record in event order (a run waiting for its
 * retry holds the record's later runs back). At least once across a crash; each card or task change exactly
 * once (its result commits with it); an http_request may repeat with the same webhook-id.
 */
export async function runDue(
  deps: RunnerDeps,
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
  const orgs = (
    await queryRows<{ organization_id: number }>(
      db.system,
      sql`select distinct organization_id from automation_runs
          where status = 'pending' and next_attempt_at <= now() ${ownOrganizations(db, sql`organization_id`)} limit 500`,
    )
  )
    .map((r) => Number(r.organization_id))
    .filter((orgId) => !onlyOrgs || onlyOrgs.has(orgId));
  if (orgs.length === 0) return 0;
  const box = await secretBox(deps.config, db);
  const secretOf = (a: AutomationRow) =>
    box.decrypt(a.secretSealed, sealContext(a.organizationId, a.documentId));
  // http_request header values are stored sealed (headers.ts): opened here, just before the actions run.
  const actionsOf = (a: AutomationRow) =>
    (a.actions as { type: string; params: Record<string, unknown> }[]).map((x) => {
      if (x.type !== 'http_request') return x as Action;
      const { sealedHeaders: _sealed, ...params } = x.params;
      const headers = openHeaders(box, sealContext(a.organizationId, a.documentId), x.params as never);
      return { type: 'http_request', params: { ...params, ...(headers ? { headers } : {}) } } as Action;
    });
  const actors: ActorCache = new Map();
  const counts = await mapInPool(orgs, ORGS_AT_ONCE, async (orgId) => {
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const claimed = await db.tenantTransaction(orgId, (tx) => claimHeads(tx, orgId, BATCH));
      if (claimed.length === 0) break;
      n += claimed.length;
      const ends = await mapInPool(claimed, PARALLEL, ({ run, automation }) =>
        execute(deps, fetch, secretOf, actionsOf, orgId, run, automation, actors).catch((err) => {
          // Left leased: taken again after the lease.
          console.error(`automations: run ${run.id} failed: ${(err as Error).message}`);
          return undefined;
        }),
      );
      const ended = ends.filter((e): e is RunEnd => e !== undefined);
      if (ended.length > 0) await db.tenantTransaction(orgId, (tx) => recordEnds(tx, orgId, ended));
      for (const e of ended) deps.metrics?.automationRuns(e.status);
    }
    return n;
  });
  return counts.reduce((a, b) => a + b, 0);
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
