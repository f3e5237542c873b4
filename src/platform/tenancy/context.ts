import type { Plan } from '../../config.js';
import type { Database, Tx } from '../db/client.js';
import { AppError } from '../http/errors.js';
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
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export function makeTenantContext(
  db: Database,
  fields: Omit<TenantContext, 'transaction' | 'idempotency'>,
): TenantContext {
  const ctx: TenantContext = {
    ...fields,
    idempotency: null,
    transaction: (fn) =>
      db.tenantTransaction(fields.orgId, async (tx) => {
        const result = await fn(tx);
        if (ctx.idempotency) await recordCommit(tx, ctx.idempotency, result);
        return result;
      }),
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
