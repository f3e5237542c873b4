import type { Plan } from '../../config.js';
import type { Database, Tx } from '../db/client.js';
import { type LaggingTarget, writerKey } from '../db/replica.js';
import { AppError, isConcurrencyConflict } from '../http/errors.js';
import { type PendingIdempotencyKey, recordCommit } from '../idempotency/commit.js';

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
const rank: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export const FEATURES = [
  'campaigns',
  'email_marketing',
  'automations',
  'lead_ads',
  'agenda',
  'inbox',
  'distribution',
  'conversions',
  'saved_filters',
  'quotes',
] as const;
export type Feature = (typeof FEATURES)[number];

export const planFeatures: Record<Plan, readonly Feature[]> = {
  free: ['saved_filters'],
  pro: ['saved_filters', 'quotes', 'campaigns', 'email_marketing', 'agenda', 'inbox'],
  business: FEATURES,
};

/** Who is asking, in which organization: built once per request by the auth hook. */
export interface TenantContext {
  orgId: number;
  orgSlug: string;
  plan: Plan;
  userId: number;
  membershipId: number;
  membershipDocumentId: string;
  role: Role;
  /** null: all of the role's permissions. */
  scopes: string[] | null;
  /**
   * The request's `Idempotency-Key`, once the idempotency preHandler holds it: every transaction then
   * records its result on the key before committing (idempotency/commit.ts), so the key knows the write
   * happened even if the process dies before answering.
   */
  idempotency: PendingIdempotencyKey | null;
  /**
   * A dry run (`?dryRun=true`, docs/dry-run.md): every transaction runs and is then rolled back, returning what
   * it would have committed, and code that acts outside the database (a provider call, a CalDAV write, a job
   * sent outside a transaction) checks this flag and answers the would-be result instead.
   */
  dryRun: boolean;
  transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * A read that may lag (board report, list statistics, exports): on the streaming replica (DATABASE_REPLICA_URL)
   * in a read-only tenant transaction (RLS as here) when it is up, within CRM_REPLICA_MAX_LAG_MS and past this
   * user's last write; else, or when the read fails there, `transaction(fn)` on the primary (db/replica.ts).
   * `fn` only reads, and is told where it runs (work that writes, such as folding deltas, only on the primary).
   * Absent from contexts built by hand (jobs, the demo seed): call the function `laggingRead(ctx, fn)`.
   */
  laggingRead?<T>(fn: (tx: Tx, on: LaggingTarget) => Promise<T>): Promise<T>;
}

/** `ctx.laggingRead(fn)` where the context has it (a request's), else `fn` on the primary in `ctx.transaction`. */
export function laggingRead<T>(
  ctx: TenantContext,
  fn: (tx: Tx, on: LaggingTarget) => Promise<T>,
): Promise<T> {
  return ctx.laggingRead ? ctx.laggingRead(fn) : ctx.transaction((tx) => fn(tx, 'primary'));
}

export interface TransactionOptions {
  /**
   * `fn` acts on the database only (no provider call, no mail, no file written, no job sent outside the
   * transaction, nothing kept in memory that outlives a rollback): when the database aborts the transaction for
   * a deadlock or a serialization failure (SQLSTATE 40P01, 40001), it runs again, in a new transaction, up to
   * CONFLICT_RETRIES times with a random pause. Its outbox and audit rows (deferStatement), the key of an
   * idempotent request (recordCommit) and a dry run's rollback are all inside the transaction, so they are rolled
   * back and written again with it. Without it, or once the retries are spent, the conflict answers 409 with
   * Retry-After (http/errors.ts), never 500.
   */
  retry?: boolean;
}

/** Runs after the first attempt of a retryable transaction that lost to concurrent ones. */
export const CONFLICT_RETRIES = 3;

/**
 * Runs `attempt` again while it fails with a concurrency conflict, at most CONFLICT_RETRIES more times: after a
 * pause of 10–30 ms, doubled each time (random, so two transactions that deadlocked do not meet again in step).
 */
export async function retryOnConflict<T>(attempt: () => Promise<T>, retries = CONFLICT_RETRIES): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= retries || !isConcurrencyConflict(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, (10 + Math.random() * 20) * 2 ** n));
    }
  }
}

/** Thrown at the end of a dry-run transaction to roll it back; carries the transaction's result out. */
class DryRunRollback<T> {
  constructor(readonly result: T) {}
}

/** Runs `fn` in a tenant transaction that is always rolled back; answers what `fn` returned. */
async function rolledBack<T>(db: Database, orgId: number, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    await db.tenantTransaction(orgId, async (tx) => {
      throw new DryRunRollback(await fn(tx));
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.result as T;
    throw err;
  }
  throw new Error('unreachable: a dry-run transaction always rolls back');
}

export function makeTenantContext(
  db: Database,
  fields: Omit<TenantContext, 'transaction' | 'laggingRead' | 'idempotency' | 'dryRun'>,
): TenantContext {
  const ctx: TenantContext = {
    ...fields,
    idempotency: null,
    dryRun: false,
    transaction: (fn, opts) => {
      // The flag is read per call: the dry-run hook sets it after the context is made (http/dry-run.ts).
      const run = () =>
        ctx.dryRun
          ? rolledBack(db, fields.orgId, fn)
          : db.tenantTransaction(
              fields.orgId,
              async (tx) => {
                const result = await fn(tx);
                if (ctx.idempotency) await recordCommit(tx, ctx.idempotency, result);
                return result;
              },
              // The key is recorded after fn, in its transaction: fn's last statement cannot carry the commit then.
              { commitEarly: !ctx.idempotency },
            );
      // Each attempt is a new transaction on a connection of its own (the pipelined client of the failed one,
      // its queued writes and its commit are gone with its rollback: db/client.ts).
      return opts?.retry ? retryOnConflict(run) : run();
    },
    laggingRead: async (fn) => {
      const reads = db.replicaReads;
      // A dry run or an idempotent request records on the primary, in the transaction.
      if (!reads || ctx.dryRun || ctx.idempotency) return ctx.transaction((tx) => fn(tx, 'primary'));
      const route = await reads.route(writerKey(fields.userId));
      if (route.target === 'replica') {
        try {
          const result = await reads.transaction(fields.orgId, (tx: Tx) => fn(tx, 'replica'));
          reads.observe('replica', route.reason);
          return result;
        } catch (err) {
          // The request's own answer (not found, forbidden, invalid) stands; anything else is the replica's.
          if (err instanceof AppError) {
            reads.observe('replica', route.reason);
            throw err;
          }
          reads.fault(err);
          reads.observe('primary', 'error');
        }
      } else reads.observe('primary', route.reason);
      return ctx.transaction((tx) => fn(tx, 'primary'));
    },
  };
  return ctx;
}

export function hasRole(ctx: Pick<TenantContext, 'role'>, min: Role): boolean {
  return rank[ctx.role] >= rank[min];
}

/** viewer reads; member writes records; admin configures; owner manages the organization. */
export function requireRole(ctx: TenantContext, min: Role) {
  if (!hasRole(ctx, min)) {
    throw new AppError('ForbiddenError', `This action needs the ${min} role or higher`, {
      requiredRole: min,
      role: ctx.role,
    });
  }
}

export function requireFeature(ctx: TenantContext, feature: Feature) {
  if (!planFeatures[ctx.plan].includes(feature)) {
    throw new AppError('ForbiddenError', `The ${ctx.plan} plan does not include the ${feature} feature`, {
      feature,
      plan: ctx.plan,
    });
  }
}

/** A feature's configuration (automations, webhook subscriptions, conversion pixels): the plan feature, and admins. */
export function requireFeatureAdmin(ctx: TenantContext, feature: Feature) {
  requireFeature(ctx, feature);
  requireRole(ctx, 'admin');
}
