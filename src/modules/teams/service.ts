import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { AppError, notFound, onUnique, validationError } from '../../platform/http/errors.js';
import {
  compileListQuery,
  type ListQueryInput,
  listPage,
  pageWindow,
  windowPage,
} from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { type Role, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipIdsByDocumentIds, userRefOf } from '../../platform/tenancy/memberships.js';
import { clearTeamFromContacts } from '../contacts/index.js';
import { teamModel } from './query-model.js';
import * as repo from './repo.js';

type TeamRow = NonNullable<Awaited<ReturnType<typeof repo.findTeam>>>;
type MemberRow = NonNullable<Awaited<ReturnType<typeof repo.findTeamMember>>>;

/** Everyone reads teams; admins configure them (DESIGN.md §6). */
function canConfigure(ctx: TenantContext) {
  requireRole(ctx, 'admin');
}

const toTeam = (r: TeamRow) => ({
  documentId: r.documentId,
  name: r.name,
  description: r.description,
  memberCount: r.memberCount,
  createdAt: isoRequired(r.createdAt),
  updatedAt: isoRequired(r.updatedAt),
});

const toMember = (r: MemberRow) => ({
  documentId: r.documentId,
  user: userRefOf(r),
  role: r.role as Role,
  addedAt: isoRequired(r.addedAt),
});

async function loadTeam(tx: Tx, orgId: number, documentId: string) {
  const row = await repo.findTeam(tx, orgId, documentId);
  if (!row) throw notFound('Team');
  return row;
}

const uniqueName = onUnique('name', 'A team with this name exists');

export async function listTeams(ctx: TenantContext, query: ListQueryInput) {
  const list = compileListQuery(teamModel, query, 'name:asc');
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listTeams(tx, ctx.orgId, list);
    return listPage(rows.map(toTeam), total, list);
  });
}

export async function getTeam(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => toTeam(await loadTeam(tx, ctx.orgId, documentId)));
}

export async function createTeam(ctx: TenantContext, input: { name: string; description?: string | null }) {
  canConfigure(ctx);
  return ctx.transaction(async (tx) => {
    const documentId = await repo.insertTeam(tx, ctx.orgId, input).catch(uniqueName);
    return toTeam(await loadTeam(tx, ctx.orgId, documentId));
  });
}

export async function updateTeam(
  ctx: TenantContext,
  documentId: string,
  input: { name?: string; description?: string | null },
) {
  canConfigure(ctx);
  return ctx.transaction(async (tx) => {
    const team = await loadTeam(tx, ctx.orgId, documentId);
    await repo.updateTeam(tx, ctx.orgId, team.id, input).catch(uniqueName);
    return toTeam(await loadTeam(tx, ctx.orgId, documentId));
  });
}

/** Deleting a team removes its memberships (cascade) and clears it from its contacts (timeline entry each). */
export async function deleteTeam(ctx: TenantContext, documentId: string) {
  canConfigure(ctx);
  return ctx.transaction(async (tx) => {
    const team = await loadTeam(tx, ctx.orgId, documentId);
    const contacts = await clearTeamFromContacts(tx, ctx.orgId, team.id, ctx.membershipId, team.documentId);
    await repo.deleteTeam(tx, ctx.orgId, team.id);
    await audit(tx, ctx, 'team.deleted', team.documentId, { name: team.name, contactsCleared: contacts });
    return { documentId: team.documentId, deleted: true as const };
  });
}

export async function listMembers(ctx: TenantContext, documentId: string, query: ListQueryInput) {
  if (query.filters || query.sort || query.populate || query.fields)
    throw validationError('Team members are listed in the order they were added', [
      { path: ['filters'], message: 'only pagination is supported here' },
    ]);
  const w = pageWindow(query.pagination);
  return ctx.transaction(async (tx) => {
    const team = await loadTeam(tx, ctx.orgId, documentId);
    const { rows, total } = await repo.listTeamMembers(tx, ctx.orgId, team.id, w.offset, w.pageSize);
    return windowPage(rows.map(toMember), total, w);
  });
}

export async function getMember(ctx: TenantContext, documentId: string, membershipId: string) {
  return ctx.transaction(async (tx) => {
    const team = await loadTeam(tx, ctx.orgId, documentId);
    const row = await repo.findTeamMember(tx, ctx.orgId, team.id, membershipId);
    if (!row) throw new AppError('NotFoundError', 'This membership is not in the team');
    return toMember(row);
  });
}

export async function addMember(ctx: TenantContext, documentId: string, membership: string) {
  canConfigure(ctx);
  return ctx.transaction(async (tx) => {
    const team = await loadTeam(tx, ctx.orgId, documentId);
    const { ids } = await membershipIdsByDocumentIds(tx, ctx.orgId, [membership]);
    const membershipId = ids.get(membership);
    if (!membershipId)
      throw validationError('Unknown membership', [
        { path: ['data', 'membership'], message: 'no member of this organization has it' },
      ]);
    await repo
      .insertTeamMember(tx, ctx.orgId, team.id, membershipId)
      .catch(onUnique('membership', 'This membership is already in the team'));
    return toMember((await repo.findTeamMember(tx, ctx.orgId, team.id, membership)) as MemberRow);
  });
}

export async function removeMember(ctx: TenantContext, documentId: string, membershipId: string) {
  canConfigure(ctx);
  return ctx.transaction(async (tx) => {
    const team = await loadTeam(tx, ctx.orgId, documentId);
    const row = await repo.findTeamMember(tx, ctx.orgId, team.id, membershipId);
    if (!row) throw new AppError('NotFoundError', 'This membership is not in the team');
    await repo.deleteTeamMember(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'team.member_removed', team.documentId, { membership: membershipId });
    return { documentId: membershipId, deleted: true as const };
  });
}
