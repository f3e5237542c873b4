import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf } from '../../platform/http/list-query.js';
import { memberships } from '../organizations/table.js';
import { users } from '../users/table.js';
import { teamMembers, teams } from './table.js';

export type TeamRow = typeof teams.$inferSelect;

// Qualified by hand: drizzle renders the outer columns unqualified, which inside the subquery would bind to m.
const memberCount = sql<number>`(select count(*)::int from ${teamMembers} m
  where m.organization_id = "teams"."organization_id" and m.team_id = "teams"."id")`;
const teamColumns = {
  id: teams.id,
  documentId: teams.documentId,
  name: teams.name,
  description: teams.description,
  createdAt: teams.createdAt,
  updatedAt: teams.updatedAt,
  memberCount,
};

/** TeamRefs (`{ documentId, name }`) for a set of internal team ids. */
export async function teamRefsByIds(tx: Tx, orgId: number, ids: number[]) {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map<number, { documentId: string; name: string }>();
  const rows = await tx
    .select({ id: teams.id, documentId: teams.documentId, name: teams.name })
    .from(teams)
    .where(and(eq(teams.organizationId, orgId), inArray(teams.id, unique)));
  return new Map(rows.map(({ id, ...ref }) => [id, ref]));
}

export async function findTeam(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select(teamColumns)
    .from(teams)
    .where(and(eq(teams.organizationId, orgId), eq(teams.documentId, documentId)));
  return row;
}

export async function listTeams(tx: Tx, orgId: number, list: CompiledList) {
  const where = and(eq(teams.organizationId, orgId), list.where);
  const rows = await tx
    .select(teamColumns)
    .from(teams)
    .where(where)
    .orderBy(list.orderBy)
    .offset(list.offset)
    .limit(list.pageSize);
  const total = await countIf(list, () => tx.select({ total: count() }).from(teams).where(where));
  return { rows, total };
}

export async function insertTeam(
  tx: Tx,
  orgId: number,
  input: { name: string; description?: string | null },
) {
  const [row] = await tx
    .insert(teams)
    .values({
      organizationId: orgId,
      documentId: newDocumentId(),
      name: input.name,
      description: input.description,
    })
    .returning({ documentId: teams.documentId });
  return row.documentId;
}

export async function updateTeam(
  tx: Tx,
  orgId: number,
  id: number,
  input: { name?: string; description?: string | null },
) {
  await tx
    .update(teams)
    .set({ ...input, updatedAt: new Date() })
    .where(and(eq(teams.organizationId, orgId), eq(teams.id, id)));
}

export async function deleteTeam(tx: Tx, orgId: number, id: number) {
  await tx.delete(teams).where(and(eq(teams.organizationId, orgId), eq(teams.id, id)));
}

const memberColumns = {
  id: teamMembers.id,
  membershipId: memberships.id,
  documentId: memberships.documentId,
  role: memberships.role,
  username: users.username,
  email: users.email,
  blocked: users.blocked,
  name: users.name,
  addedAt: teamMembers.createdAt,
};

function membersQuery(tx: Tx, where: SQL | undefined) {
  return tx
    .select(memberColumns)
    .from(teamMembers)
    .innerJoin(
      memberships,
      and(
        eq(memberships.organizationId, teamMembers.organizationId),
        eq(memberships.id, teamMembers.membershipId),
      ),
    )
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(where);
}

export async function listTeamMembers(tx: Tx, orgId: number, teamId: number, offset: number, limit: number) {
  const where = and(eq(teamMembers.organizationId, orgId), eq(teamMembers.teamId, teamId));
  const rows = await membersQuery(tx, where)
    .orderBy(teamMembers.createdAt, teamMembers.id)
    .offset(offset)
    .limit(limit);
  const [{ total }] = await tx.select({ total: count() }).from(teamMembers).where(where);
  return { rows, total };
}

export async function findTeamMember(tx: Tx, orgId: number, teamId: number, membershipDocumentId: string) {
  const [row] = await membersQuery(
    tx,
    and(
      eq(teamMembers.organizationId, orgId),
      eq(teamMembers.teamId, teamId),
      eq(memberships.documentId, membershipDocumentId),
    ),
  );
  return row;
}

export async function insertTeamMember(tx: Tx, orgId: number, teamId: number, membershipId: number) {
  await tx
    .insert(teamMembers)
    .values({ organizationId: orgId, documentId: newDocumentId(), teamId, membershipId });
}

export async function deleteTeamMember(tx: Tx, orgId: number, id: number) {
  await tx.delete(teamMembers).where(and(eq(teamMembers.organizationId, orgId), eq(teamMembers.id, id)));
}

/** Internal id of a team named by documentId, or undefined when absent in this organization. */
export async function teamIdByDocumentId(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.organizationId, orgId), eq(teams.documentId, documentId)));
  return row?.id;
}
