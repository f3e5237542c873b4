import { and, count, eq, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf } from '../../platform/http/list-query.js';
import type { Role } from '../../platform/tenancy/context.js';
import { users } from '../users/table.js';
import { memberships, organizations } from './table.js';

export async function insertOrganization(
  tx: Executor,
  input: { name: string; slug: string; plan: string; timeZone?: string },
) {
  const [row] = await tx
    .insert(organizations)
    .values({ ...input, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function listUserOrganizations(ex: Executor, userId: number, offset: number, limit: number) {
  const where = sql`exists (select 1 from memberships m where m.organization_id = ${organizations.id} and m.user_id = ${userId})`;
  const rows = await ex
    .select({
      documentId: organizations.documentId,
      name: organizations.name,
      slug: organizations.slug,
      plan: organizations.plan,
      timeZone: organizations.timeZone,
      retention: organizations.retention,
      marketingRequiresConsent: organizations.marketingRequiresConsent,
      consentStopKeywords: organizations.consentStopKeywords,
      deletionScheduledAt: organizations.deletionScheduledAt,
      createdAt: organizations.createdAt,
      updatedAt: organizations.updatedAt,
      role: memberships.role,
      membershipDocumentId: memberships.documentId,
    })
    .from(organizations)
    .innerJoin(
      memberships,
      and(eq(memberships.organizationId, organizations.id), eq(memberships.userId, userId)),
    )
    .orderBy(organizations.name, organizations.id)
    .offset(offset)
    .limit(limit);
  const [{ total }] = await ex.select({ total: count() }).from(organizations).where(where);
  return { rows, total };
}

export async function findOrganizationById(ex: Executor, id: number) {
  const [row] = await ex.select().from(organizations).where(eq(organizations.id, id));
  return row;
}

/** An organization by documentId with the user's role in it; undefined when the user is not a member. */
export async function findUserOrganization(ex: Executor, userId: number, documentId: string, lock = false) {
  const q = ex
    .select({ org: organizations, role: memberships.role })
    .from(organizations)
    .innerJoin(
      memberships,
      and(eq(memberships.organizationId, organizations.id), eq(memberships.userId, userId)),
    )
    .where(eq(organizations.documentId, documentId));
  const [row] = lock ? await q.for('update', { of: organizations }) : await q;
  return row;
}

/** What PUT /organizations/{id} may change. */
export interface OrganizationChanges {
  name?: string;
  timeZone?: string;
  retention?: Record<string, number | null>;
  marketingRequiresConsent?: boolean;
  consentStopKeywords?: string[];
}

export async function updateOrganization(ex: Executor, id: number, values: OrganizationChanges) {
  const [row] = await ex
    .update(organizations)
    .set({ ...values, updatedAt: new Date() })
    .where(eq(organizations.id, id))
    .returning();
  return row;
}

/** The IANA time zone the organization's calendar runs in (task recurrence). */
export async function organizationTimeZone(ex: Executor, id: number) {
  const [row] = await ex
    .select({ timeZone: organizations.timeZone })
    .from(organizations)
    .where(eq(organizations.id, id));
  return row?.timeZone;
}

export async function findOrganizationBySlug(ex: Executor, slug: string) {
  const [row] = await ex.select().from(organizations).where(eq(organizations.slug, slug));
  return row;
}

export async function setOrganizationPlan(ex: Executor, slug: string, plan: string) {
  const [row] = await ex
    .update(organizations)
    .set({ plan, updatedAt: new Date() })
    .where(eq(organizations.slug, slug))
    .returning();
  return row;
}

const membershipColumns = {
  id: memberships.id,
  documentId: memberships.documentId,
  userId: memberships.userId,
  role: memberships.role,
  createdAt: memberships.createdAt,
  updatedAt: memberships.updatedAt,
  username: users.username,
  email: users.email,
  blocked: users.blocked,
  name: users.name,
};
export type MembershipRow = { [K in keyof typeof membershipColumns]: any } & { role: Role };

export async function insertMembership(tx: Tx, orgId: number, userId: number, role: Role) {
  const [row] = await tx
    .insert(memberships)
    .values({ organizationId: orgId, userId, role, documentId: newDocumentId() })
    .returning({ documentId: memberships.documentId });
  return findMembership(tx, orgId, row.documentId);
}

export async function findMembershipByUser(tx: Tx, orgId: number, userId: number) {
  const [row] = await tx
    .select(membershipColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.userId, userId)));
  return row as MembershipRow | undefined;
}

/** The user's membership, created with `role` unless one exists (then it is kept as it is). */
export async function ensureMembership(tx: Tx, orgId: number, userId: number, role: Role) {
  const inserted = await tx
    .insert(memberships)
    .values({ organizationId: orgId, userId, role, documentId: newDocumentId() })
    .onConflictDoNothing({ target: [memberships.organizationId, memberships.userId] })
    .returning({ id: memberships.id });
  return { membership: (await findMembershipByUser(tx, orgId, userId))!, created: inserted.length > 0 };
}

export async function findMembership(
  tx: Tx,
  orgId: number,
  documentId: string,
): Promise<MembershipRow | undefined> {
  const [row] = await tx
    .select(membershipColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.documentId, documentId)));
  return row as MembershipRow | undefined;
}

export async function listMemberships(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(memberships.organizationId, orgId), q.where);
  const rows = await tx
    .select(membershipColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(memberships).where(where));
  return { rows: rows as MembershipRow[], total };
}

export async function updateMembershipRole(tx: Tx, orgId: number, documentId: string, role: Role) {
  await tx
    .update(memberships)
    .set({ role, updatedAt: new Date() })
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.documentId, documentId)));
}

export async function deleteMembership(tx: Tx, orgId: number, documentId: string) {
  await tx
    .delete(memberships)
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.documentId, documentId)));
}

export async function countOwners(tx: Tx, orgId: number) {
  const [{ n }] = await tx
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.organizationId, orgId), eq(memberships.role, 'owner')));
  return n;
}
