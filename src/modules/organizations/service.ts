import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Plan } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import { type Principal, refuseWriteWhileDeleting } from '../../platform/auth/plugin.js';
import type { Tx } from '../../platform/db/client.js';
import type { AppDeps } from '../../platform/deps.js';
import { AppError, notFound, onUnique } from '../../platform/http/errors.js';
import {
  compileListQuery,
  type ListQueryInput,
  listPage,
  pageWindow,
  windowPage,
} from '../../platform/http/list-query.js';
import { type PendingIdempotencyKey, recordCommit } from '../../platform/idempotency/commit.js';
import { slugify } from '../../platform/slugs.js';
import { hasRole, type Role, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipModel } from '../../platform/tenancy/memberships.js';
import { findUserByEmail } from '../users/index.js';
import { toMembership, toOrganization } from './present.js';
import * as repo from './repo.js';
import type { membershipInput, membershipUpdate, organizationInput, organizationUpdate } from './schema.js';

/**
 * Creates an organization with its first owner, in one transaction. A keyed request's `Idempotency-Key` is
 * marked with the answer in the same transaction (tenant routes get this from their TenantContext; this
 * user-level write does it itself), so a process dying before it answers leaves a key the retry replays.
 */
export async function createOrganization(
  { db, config }: AppDeps,
  userId: number,
  input: z.infer<typeof organizationInput> & { plan?: Plan },
  idempotency: PendingIdempotencyKey | null = null,
) {
  const slug = input.slug ?? slugify(input.name);
  return db.system.transaction(async (tx) => {
    const org = await repo
      .insertOrganization(tx, {
        name: input.name,
        slug,
        plan: input.plan ?? config.CRM_DEFAULT_PLAN,
        timeZone: input.timeZone,
      })
      .catch(onUnique('slug', `The slug ${slug} is taken`));
    // The owner's membership is a tenant row: written under RLS, as every tenant write.
    await tx.execute(
      sql`select set_config('role', 'crm_app', true), set_config('app.organization_id', ${String(org.id)}, true)`,
    );
    const owner = await repo.insertMembership(tx as Tx, org.id, userId, 'owner');
    if (idempotency) await recordCommit(tx as Tx, idempotency, toOrganization(org, 'owner'));
    return { org, owner: owner! };
  });
}

export async function createOrganizationForUser(
  deps: AppDeps,
  principal: Principal,
  input: z.infer<typeof organizationInput>,
  idempotency: PendingIdempotencyKey | null,
) {
  const { org } = await createOrganization(deps, principal.userId, input, idempotency);
  return toOrganization(org, 'owner');
}

export async function listOrganizations({ db }: AppDeps, principal: Principal, query: ListQueryInput) {
  const w = pageWindow(query.pagination);
  if (query.filters || query.sort || query.populate || query.fields) {
    throw new AppError('ValidationError', 'The organization list takes pagination only');
  }
  const { rows, total } = await repo.listUserOrganizations(db.system, principal.userId, w.offset, w.pageSize);
  return windowPage(
    rows.map((r) => toOrganization(r, r.role as Role)),
    total,
    w,
  );
}

const orgNotFound = () =>
  new AppError('NotFoundError', 'Organization not found: GET /organizations lists the ones you belong to');

/** One organization the user belongs to. */
export async function getOrganization({ db }: AppDeps, principal: Principal, documentId: string) {
  const found = await repo.findUserOrganization(db.system, principal.userId, documentId);
  if (!found) throw orgNotFound();
  return toOrganization(found.org, found.role as Role);
}

/**
 * Changes the organization's name or settings (time zone): owners and admins, as member administration. Not a
 * member: 404, as for an organization that does not exist. Audited in the organization's log.
 */
export async function updateOrganization(
  { db }: AppDeps,
  principal: Principal,
  documentId: string,
  input: z.infer<typeof organizationUpdate>,
) {
  return db.system.transaction(async (tx) => {
    const found = await repo.findUserOrganization(tx, principal.userId, documentId, true);
    if (!found) throw orgNotFound();
    const role = found.role as Role;
    if (role !== 'owner' && role !== 'admin')
      throw new AppError('ForbiddenError', 'Only an owner or admin changes the organization', {
        required: 'admin',
      });
    if (found.org.deletionStartedAt) refuseWriteWhileDeleting();
    const { retention, ...rest } = input;
    const changes = Object.fromEntries(
      Object.entries(rest).filter(
        ([k, v]) =>
          v !== undefined && JSON.stringify(v) !== JSON.stringify(found.org[k as keyof typeof rest]),
      ),
    ) as repo.OrganizationChanges;
    if (retention && Object.entries(retention).some(([k, v]) => found.org.retention[k] !== v))
      changes.retention = { ...found.org.retention, ...retention };
    if (!Object.keys(changes).length) return toOrganization(found.org, role);
    const row = await repo.updateOrganization(tx, found.org.id, changes);
    await tx.execute(
      sql`select set_config('role', 'crm_app', true), set_config('app.organization_id', ${String(row.id)}, true)`,
    );
    await audit(
      tx as Tx,
      { orgId: row.id, userId: principal.userId },
      'organization.updated',
      row.documentId,
      {
        from: Object.fromEntries(Object.keys(changes).map((k) => [k, found.org[k as keyof typeof changes]])),
        to: changes,
      },
    );
    return toOrganization(row, role);
  });
}

export async function listMemberships(ctx: TenantContext, query: ListQueryInput) {
  const q = compileListQuery(membershipModel, query, 'createdAt:asc');
  const { rows, total } = await ctx.transaction((tx) => repo.listMemberships(tx, ctx.orgId, q));
  return listPage(rows.map(toMembership), total, q);
}

export async function getMembership(ctx: TenantContext, documentId: string) {
  const row = await ctx.transaction((tx) => repo.findMembership(tx, ctx.orgId, documentId));
  if (!row) throw notFound('Membership');
  return toMembership(row);
}

/**
 * Adds a registered user directly: the operator's `crm member add` (trusted, no consent step). Through the API,
 * `POST /memberships` invites instead (src/modules/invitations): the invitee accepts before becoming a member.
 */
export async function addMember(ctx: TenantContext, input: z.infer<typeof membershipInput>) {
  requireRole(ctx, 'admin');
  if (input.role === 'owner') requireRole(ctx, 'owner');
  return ctx.transaction(async (tx) => {
    const user = await findUserByEmail(tx, input.email);
    if (!user) {
      throw new AppError(
        'NotFoundError',
        'No user has this email: they sign up first (POST /auth/local/register)',
        {
          errors: [{ path: ['email'], message: 'no registered user has this email' }],
        },
      );
    }
    const row = await repo
      .insertMembership(tx, ctx.orgId, user.id, input.role)
      .catch(onUnique('email', 'This user is already a member'));
    await audit(tx, ctx, 'membership.created', row!.documentId, { role: input.role });
    return toMembership(row!);
  });
}

export async function changeRole(
  ctx: TenantContext,
  documentId: string,
  input: z.infer<typeof membershipUpdate>,
) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findMembership(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Membership');
    if ((row.role === 'owner' || input.role === 'owner') && !hasRole(ctx, 'owner')) {
      throw new AppError('ForbiddenError', 'Only an owner grants or removes the owner role');
    }
    if (row.role === 'owner' && input.role !== 'owner' && (await repo.countOwners(tx, ctx.orgId)) <= 1) {
      throw new AppError('UnprocessableEntityError', 'An organization keeps at least one owner');
    }
    await repo.updateMembershipRole(tx, ctx.orgId, documentId, input.role);
    await audit(tx, ctx, 'membership.role_changed', documentId, { from: row.role, to: input.role });
    return toMembership({ ...row, role: input.role, updatedAt: new Date() });
  });
}

export async function removeMember(ctx: TenantContext, documentId: string) {
  const self = documentId === ctx.membershipDocumentId;
  if (!self) requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findMembership(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Membership');
    if (row.role === 'owner' && !self && !hasRole(ctx, 'owner')) {
      throw new AppError('ForbiddenError', 'Only an owner removes an owner');
    }
    if (row.role === 'owner' && (await repo.countOwners(tx, ctx.orgId)) <= 1) {
      throw new AppError('UnprocessableEntityError', 'An organization keeps at least one owner');
    }
    await repo.deleteMembership(tx, ctx.orgId, documentId);
    await audit(tx, ctx, 'membership.deleted', documentId, { userEmail: row.email, role: row.role });
    return { documentId, deleted: true as const };
  });
}
