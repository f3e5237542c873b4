import { and, eq, sql } from 'drizzle-orm';
import type { Principal } from '../../platform/auth/plugin.js';
import { type Executor, queryRows, type Tx } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { memberships, organizations } from '../organizations/table.js';

export type OrganizationRow = typeof organizations.$inferSelect;

/**
 * The organization (by documentId, locked) when the principal is one of its owners: not a member is a 404 as
 * for an organization that does not exist, another role a 403.
 */
export async function ownedOrganization(tx: Executor, principal: Principal, documentId: string) {
  const [found] = await tx
    .select({ org: organizations, role: memberships.role })
    .from(organizations)
    .innerJoin(
      memberships,
      and(eq(memberships.organizationId, organizations.id), eq(memberships.userId, principal.userId)),
    )
    .where(eq(organizations.documentId, documentId))
    .for('update', { of: organizations });
  if (!found)
    throw new AppError(
      'NotFoundError',
      'Organization not found: GET /organizations lists the ones you belong to',
    );
  if (found.role !== 'owner')
    throw new AppError('ForbiddenError', 'Only an owner exports or deletes the organization', {
      required: 'owner',
    });
  return found.org;
}

/** Runs the rest of a system transaction as the tenant (crm_app, row-level security on). */
export async function asTenant(tx: Executor, orgId: number) {
  await tx.execute(
    sql`select set_config('role', 'crm_app', true), set_config('app.organization_id', ${String(orgId)}, true)`,
  );
  return tx as Tx;
}

/** The e-mails of the organization's owners. */
export async function ownerEmails(tx: Executor, orgId: number) {
  const rows = await queryRows<{ email: string }>(
    tx,
    sql`select u.email from memberships m join users u on u.id = m.user_id
        where m.organization_id = ${orgId} and m.role = 'owner' order by u.id`,
  );
  return rows.map((r) => r.email);
}

/** The deletion job has claimed the organization (deletion.ts): nothing is changed, cancelled or exported. */
export function refuseWhileDeleting(org: OrganizationRow, what: string) {
  if (org.deletionStartedAt)
    throw new AppError('ConflictError', `This organization is being deleted: ${what}`, {
      deletionStartedAt: org.deletionStartedAt.toISOString(),
    });
}
