/**
 * The bench data set's structure (bench/seed.ts): users, organizations with their memberships, boards with
 * phases, fields and tags, through the service's own functions, so it is exactly what the service writes.
 */
import { sql } from 'drizzle-orm';
import * as boardsRepo from '../src/modules/boards/repo.js';
import { addMember, createOrganization } from '../src/modules/organizations/service.js';
import { register } from '../src/modules/users/service.js';
import { queryRows } from '../src/platform/db/client.js';
import type { AppDeps } from '../src/platform/deps.js';
import { makeTenantContext, type Role, type TenantContext } from '../src/platform/tenancy/context.js';
import { FIELDS, PHASES, TAG_COLORS, TAGS } from './seed-vocabulary.js';

export interface Member {
  id: number;
  documentId: string;
  role: Role;
}
export interface BoardInfo {
  id: number;
  documentId: string;
  phases: { id: number; documentId: string; slug: string; order: number; weight: number }[];
  fields: { documentId: string; slug: string; type: string; phase: number; options?: readonly string[] }[];
  tags: { id: number; documentId: string; slug: string }[];
}

/** bench-user-0 … bench-user-19: the first owns every organization, the others are their members. */
export async function registerUsers(deps: AppDeps) {
  const users = [];
  for (let i = 0; i < 20; i++) {
    const { user } = await register(deps, {
      username: `bench-user-${i}`,
      email: `bench-user-${i}@bench.example.com`,
      password: `bench-password-${i}`,
    });
    users.push(user);
  }
  return users;
}

export type BenchUser = Awaited<ReturnType<typeof registerUsers>>[number];

/**
 * Organization bench-`o`, owned by the first user: the largest (o = 0) with 19 more members (two admins, a
 * viewer), the others with 2 admins. Its tenant context (as its owner) and its memberships.
 */
export async function createBenchOrganization(deps: AppDeps, users: BenchUser[], o: number) {
  const largest = o === 0;
  const { org, owner } = await createOrganization(deps, users[0].id, {
    name: `Bench ${o}`,
    slug: `bench-${o}`,
  });
  const ctx = makeTenantContext(deps.db, {
    orgId: org.id,
    orgSlug: org.slug,
    plan: 'business',
    userId: users[0].id,
    membershipId: owner.id,
    membershipDocumentId: owner.documentId,
    role: 'owner',
    scopes: null,
  });
  const memberCount = largest ? 19 : 2;
  for (let u = 1; u <= memberCount; u++) {
    const role: Role = u <= 2 ? 'admin' : u === memberCount && largest ? 'viewer' : 'member';
    await addMember(ctx, { email: users[u].email, role });
  }
  const members = await deps.db.tenantTransaction(org.id, (tx) =>
    queryRows<Member>(
      tx,
      sql`select id, document_id as "documentId", role from memberships where organization_id = ${org.id} order by id`,
    ),
  );
  const ownerMember = members.find((m) => m.role === 'owner')!;
  return { org, ctx, members, ownerMember };
}

export async function createBoard(
  ctx: TenantContext,
  index: number,
  owner: Member,
  members: Member[],
): Promise<BoardInfo> {
  return ctx.transaction(async (tx) => {
    const board = await boardsRepo.insertBoard(tx, ctx.orgId, {
      name: index === 0 ? 'Vendas' : `Funil ${index + 1}`,
      slug: index === 0 ? 'vendas' : `funil-${index + 1}`,
      showValue: true,
      currency: 'BRL',
      ownerMembershipId: owner.id,
    });
    const phases: BoardInfo['phases'] = [];
    for (const [order, p] of PHASES.entries()) {
      const row = await boardsRepo.insertPhase(tx, ctx.orgId, board.id, {
        name: p.name,
        slug: p.slug,
        order,
        isPublic: order === 0,
        maxTimeInPhaseHours: p.sla,
      });
      phases.push({ id: row.id, documentId: row.documentId, slug: row.slug, order, weight: p.weight });
    }
    const fields: BoardInfo['fields'] = [];
    for (const [order, f] of FIELDS.entries()) {
      const row = await boardsRepo.insertField(tx, ctx.orgId, board.id, {
        phaseId: phases[f.phase].id,
        label: f.label,
        slug: f.slug,
        type: f.type,
        order,
        required: 'required' in f ? f.required : false,
        options: 'options' in f ? [...f.options] : null,
      });
      fields.push({
        documentId: row.documentId,
        slug: f.slug,
        type: f.type,
        phase: f.phase,
        options: 'options' in f ? f.options : undefined,
      });
    }
    const tags: BoardInfo['tags'] = [];
    for (const [i, name] of TAGS.entries()) {
      const row = await boardsRepo.insertTag(tx, ctx.orgId, board.id, {
        name,
        slug: name,
        color: TAG_COLORS[i % TAG_COLORS.length],
      });
      tags.push({ id: row.id, documentId: row.documentId, slug: row.slug });
    }
    await boardsRepo.updateBoard(tx, ctx.orgId, board.id, {
      wonPhaseId: phases[4].id,
      lostPhaseId: phases[5].id,
    });
    // Members edit the board, the viewer sees it (admins and the owner see every board).
    await boardsRepo.replaceBoardMembers(
      tx,
      ctx.orgId,
      board.id,
      'editor',
      members.filter((m) => m.role === 'member').map((m) => m.id),
    );
    await boardsRepo.replaceBoardMembers(
      tx,
      ctx.orgId,
      board.id,
      'member',
      members.filter((m) => m.role === 'viewer').map((m) => m.id),
    );
    return { id: board.id, documentId: board.documentId, phases, fields, tags };
  });
}
