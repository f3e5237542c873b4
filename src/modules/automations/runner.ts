import type { Config, Plan } from '../../config.js';
import { mapInPool } from '../../platform/concurrency.js';
import type { Tx } from '../../platform/db/client.js';
import type { WorkerDeps } from '../../platform/deps.js';
import { withEventDepth } from '../../platform/events/outbox.js';
import { registerPumpedWorker } from '../../platform/events/pumped-worker.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { type SafeFetch, sharedSafeFetch } from '../../platform/outbound/safe-fetch.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { planFeatures, type Role, type TenantContext } from '../../platform/tenancy/context.js';
import { type ActionEnv, RetryableError, runAction } from './actions.js';
import { openHeaders } from './headers.js';
import type { AutomationRow, RunRow } from './repo.js';
import * as repo from './repo.js';
import type { Action, ActionResult } from './schema.js';
import { sealContext } from './service.js';

/** Attempts of a run whose action failed transiently (receiver down); the waits double from 5 s. */
export const MAX_ATTEMPTS = 6;
/**
 * A claimed run is not claimed again for this long (a crashed worker's run is taken over after it): six provider
 * timeouts, 60 s by default. Its worker renews it every third of that while it works the run (keepLeases), so a
 * wait for a channel's slot (a throughput hold can be a minute) or a slow action never lets another worker take a
 * live worker's run.
 */
const leaseMs = (config: Config) => 6 * config.CRM_PROVIDER_TIMEOUT_MS;
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

/**
 * The oldest pending run of each record, claimed (at most `limit`, oldest first across records, only when it is
 * due): locked, its lease moved forward and its attempt counted in one statement, so two workers never run it at
 * once and a crashed worker's run is resumed after the lease (its done actions are not repeated: each one's
 * result committed with its change). Not SKIP LOCKED: a second runner (another worker process woken by the same
 * commit) waits for the claim, then finds the head leased (the lease condition is checked again on the locked
 * row), and never runs a later run of a record before it. The claimed runs come back with their automations.
 */
function claimHeads(tx: Tx, orgId: number, limit: number, lease: number) {
  return repo.claimRunHeads(tx, orgId, limit, new Date(Date.now() + lease));
}

/**
 * The run was claimed again by another worker (this one let its lease lapse: stopped, or its renewals failed): this
 * worker records nothing more for it and sends nothing more; the other goes on from the results it finds.
 */
class LeaseLostError extends Error {
  constructor(runId: number) {
    super(`run ${runId} was claimed by another worker after its lease: given up here`);
  }
}

/** A write of a claimed run that changed nothing: the run is no longer this claim's. */
function owned(changed: boolean, runId: number) {
  if (!changed) throw new LeaseLostError(runId);
}

/**
 * Keeps a claimed batch's leases while this worker works it: renewed every third of the lease (claims still holding
 * their runs only), until the batch's ends are recorded. A run leaves it when it waits for its retry (its own time,
 * which a renewal must not move) or is given up (taken again after the lease).
 */
function keepLeases(db: RunnerDeps['db'], orgId: number, runs: RunRow[], lease: number) {
  const held = new Map(runs.map((r) => [r.id, r.attempts]));
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing
      .then(() => {
        const claims = [...held].map(([id, attempts]) => ({ id, attempts }));
        if (claims.length === 0) return;
        const until = new Date(Date.now() + lease);
        return db.tenantTransaction(orgId, (tx) => repo.renewRunLeases(tx, orgId, claims, until));
      })
      .catch((err) => console.error(`automations: renewing leases failed: ${(err as Error).message}`));
  }, lease / 3);
  return {
    /** No longer renewed, once a renewal under way has committed. */
    release: (runId: number) => {
      held.delete(runId);
      return renewing;
    },
    stop: () => {
      clearInterval(timer);
      return renewing;
    },
  };
}
type Leases = ReturnType<typeof keepLeases>;

type ActorCache = Map<string, Promise<repo.ActorRow | undefined>>;
/**
 * The result an action armed (`arm`): recorded by the transaction of its card or task change, at its commit;
 * `committed` once that transaction has (the runner then records nothing more for the action).
 */
type OnCommit = { hook: ((tx: Tx) => Promise<void>) | null; committed: boolean };

/** The automation's admin as a request context: the actions pass the same checks as that person's API calls. */
async function actorContext(
  deps: Pick<WorkerDeps, 'db'>,
  orgId: number,
  membershipId: number,
  onCommit: OnCommit,
  actors: ActorCache,
): Promise<TenantContext | string> {
  // Read once per pass of the runner (runDue) per organization and admin: a pass lasts seconds.
  const key = `${orgId}:${membershipId}`;
  let read = actors.get(key);
  if (!read) {
    read = repo.findActor(deps.db, orgId, membershipId);
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
    transaction: async (fn) => {
      let hooked = false;
      const result = await deps.db.tenantTransaction(orgId, async (tx) => {
        const result = await fn(tx);
        const hook = onCommit.hook;
        onCommit.hook = null;
        if (hook) await hook(tx);
        hooked = hook !== null;
        return result;
      });
      if (hooked) onCommit.committed = true;
      return result;
    },
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
 * What a run needs before its actions, or how it ends without them: failed when its admin can no longer act for
 * it or its http_request header values cannot be opened.
 */
async function prepareRun(
  deps: RunnerDeps,
  actionsOf: (a: AutomationRow) => Action[],
  orgId: number,
  run: RunRow,
  automation: AutomationRow,
  onCommit: OnCommit,
  actors: ActorCache,
): Promise<RunEnd | { ctx: TenantContext; actions: Action[] }> {
  const ctx = await actorContext(deps, orgId, automation.actorMembershipId, onCommit, actors);
  if (typeof ctx === 'string') return { id: run.id, status: 'failed', message: ctx };
  try {
    return { ctx, actions: actionsOf(automation) };
  } catch {
    // Sealed for another automation (a copied row) or under a key the service no longer has.
    return {
      id: run.id,
      status: 'failed',
      message: 'the http_request header values cannot be opened: save them again',
    };
  }
}

/** An action's result in a transaction of its own, over the outcome its reserved send left if there is one. */
async function recordResult(
  db: RunnerDeps['db'],
  orgId: number,
  claim: repo.RunClaim,
  index: number,
  result: ActionResult,
  reserved: boolean,
) {
  const changed = await db.tenantTransaction(orgId, (tx) =>
    reserved
      ? repo.setRunResult(tx, orgId, claim, index, result)
      : repo.appendRunResult(tx, orgId, claim, index, result),
  );
  owned(changed, claim.id);
}

/**
 * Runs one claimed run's remaining actions; returns how it ended, or undefined when it waits for a retry (recorded
 * here; later runs of its record wait too). Every result is written only while the claim still holds the run; when
 * it no longer does (LeaseLostError) the run is given up here before anything more is sent or changed.
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
  leases: Leases,
): Promise<RunEnd | undefined> {
  const { db } = deps;
  if (!automation?.enabled) return { id: run.id, status: 'skipped', message: 'the automation is disabled' };
  const onCommit: OnCommit = { hook: null, committed: false };
  const prepared = await prepareRun(deps, actionsOf, orgId, run, automation, onCommit, actors);
  if ('status' in prepared) return prepared;
  const { ctx, actions } = prepared;
  const results = [...(run.results as ActionResult[])];
  const event = run.event as ActionEnv['event'];
  const claim: repo.RunClaim = { id: run.id, attempts: run.attempts };
  // Recorded with the run's end: a crash before it runs the last action again (an http_request may repeat
  // with the same webhook-id; a card or task change recorded its result in its own transaction, the arm hook).
  let last: RunEnd['last'];
  for (let i = results.length; i < actions.length; i++) {
    const a = actions[i];
    let reserved = false;
    onCommit.committed = false;
    const env: ActionEnv = {
      db,
      config: deps.config,
      jobs: deps.jobs,
      fetch,
      ctx,
      event,
      secret: secretOf(automation),
      messageId: `${run.eventId}.${automation.documentId}.${i}`,
      // Only while this claim holds the run: a run claimed again by another worker is not sent from here.
      reserve: async () => {
        reserved = true;
        const changed = await db.tenantTransaction(orgId, (tx) =>
          repo.appendRunResult(tx, orgId, claim, i, {
            type: a.type,
            ok: false,
            message: 'interrupted while sending: outcome unknown, not sent again',
          }),
        );
        owned(changed, run.id);
      },
      // The change and its result commit together: a retry never repeats a done card or task change (and a run
      // claimed again by another worker rolls the change back).
      arm: (planned) => {
        onCommit.hook = async (tx) =>
          owned(
            await repo.appendRunResult(tx, orgId, claim, i, {
              type: a.type,
              ok: true,
              message: null,
              output: planned,
            }),
            run.id,
          );
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
      else if (!onCommit.committed) await recordResult(db, orgId, claim, i, ok, reserved);
      results.push({ type: a.type, ok: true, message: null, output });
    } catch (err) {
      onCommit.hook = null;
      if (err instanceof LeaseLostError) throw err;
      const message = ((err as Error).message || String(err)).slice(0, 500);
      if (err instanceof RetryableError && !reserved && run.attempts < MAX_ATTEMPTS) {
        const wait = 5_000 * 2 ** (run.attempts - 1);
        await leases.release(run.id);
        await db.tenantTransaction(orgId, (tx) =>
          repo.scheduleRunRetry(
            tx,
            orgId,
            claim,
            new Date(Date.now() + wait),
            `${a.type}: ${message} (will retry)`,
          ),
        );
        deps.metrics?.automationRuns('retry');
        return undefined;
      }
      const result = { type: a.type, ok: false, message };
      if (i === actions.length - 1) last = { index: i, result, reserved };
      // A change that committed its result before the action failed keeps that result.
      else if (!onCommit.committed) await recordResult(db, orgId, claim, i, result, reserved);
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

/**
 * The batch's ended runs in one statement: status, message, end time and each one's last action result (those still
 * held by their claim); the ids ended.
 */
function recordEnds(tx: Tx, orgId: number, ends: RunEnd[], attemptsOf: Map<number, number>) {
  return repo.recordRunEnds(
    tx,
    orgId,
    ends.map((e) => ({
      id: e.id,
      attempts: attemptsOf.get(e.id)!,
      status: e.status,
      message: e.message,
      idx: e.last?.index ?? null,
      result: e.last?.result ?? null,
      reserved: e.last?.reserved ?? false,
    })),
  );
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
  const orgs = (await repo.organizationsWithDueRuns(db)).filter((orgId) => !onlyOrgs || onlyOrgs.has(orgId));
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
  const lease = leaseMs(deps.config);
  const counts = await mapInPool(orgs, ORGS_AT_ONCE, async (orgId) => {
    let n = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const claimed = await db.tenantTransaction(orgId, (tx) => claimHeads(tx, orgId, BATCH, lease));
      if (claimed.length === 0) break;
      n += claimed.length;
      const runs = claimed.map((c) => c.run);
      const leases = keepLeases(db, orgId, runs, lease);
      try {
        const ends = await mapInPool(claimed, PARALLEL, ({ run, automation }) =>
          execute(deps, fetch, secretOf, actionsOf, orgId, run, automation, actors, leases).catch((err) => {
            // Left leased, no longer renewed: taken again after the lease (or already taken by another worker).
            void leases.release(run.id);
            console.error(`automations: run ${run.id} failed: ${(err as Error).message}`);
            return undefined;
          }),
        );
        const ended = ends.filter((e): e is RunEnd => e !== undefined);
        const attemptsOf = new Map(runs.map((r) => [r.id, r.attempts]));
        const recorded =
          ended.length > 0
            ? await db.tenantTransaction(orgId, (tx) => recordEnds(tx, orgId, ended, attemptsOf))
            : new Set<number>();
        for (const e of ended) if (recorded.has(e.id)) deps.metrics?.automationRuns(e.status);
      } finally {
        await leases.stop();
      }
    }
    return n;
  });
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * The runner: woken when the dispatcher fanned events out, and about every second for retries and waits that
 * became due (platform/events/pumped-worker.ts).
 */
export function registerAutomationWorkers(deps: WorkerDeps) {
  return registerPumpedWorker(deps, {
    name: 'automations: run',
    queue: automationQueue,
    every: 1,
    work: () => runDue(deps),
  });
}
