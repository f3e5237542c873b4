import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import {
  AppError,
  type FieldError,
  notFound,
  onUnique,
  validationError,
} from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipIdsByDocumentIds } from '../../platform/tenancy/memberships.js';
import { loadBoardForRead, unknownBoard } from '../boards/index.js';
import { findInboxOr404 } from '../inbox/index.js';
import * as repo from './repo.js';
import type { DistributionQueue, QueueCreateInput, QueueUpdateInput } from './schema.js';

function toQueue(row: repo.QueueRow, members: repo.MemberRow[]): DistributionQueue {
  return {
    documentId: row.documentId,
    name: row.name,
    board:
      row.boardDocumentId === null ? null : { documentId: row.boardDocumentId, name: row.boardName ?? '' },
    inbox: row.inboxId === null ? null : { id: Number(row.inboxId), name: row.inboxName ?? '' },
    strategy: row.strategy as DistributionQueue['strategy'],
    active: row.active,
    members: members
      .filter((m) => m.queueId === row.id)
      .map((m) => ({
        membership: { documentId: m.membershipDocumentId },
        weight: m.weight,
        active: m.active,
        assignedCount: m.assignedCount,
        lastAssignedAt: iso(m.lastAssignedAt),
      })),
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

async function present(tx: Tx, orgId: number, documentId: string) {
  const row = await repo.findQueue(tx, orgId, documentId);
  if (!row) throw notFound('Distribution queue');
  return toQueue(row, await repo.membersOf(tx, orgId, [row.id]));
}

async function resolveMembers(tx: Tx, orgId: number, list: QueueCreateInput['members'], forInbox: boolean) {
  const refs = list.map((m) => m.membership);
  const errors: FieldError[] = [];
  refs.forEach((r, i) => {
    if (refs.indexOf(r) !== i)
      errors.push({
        path: ['members', i, 'membership'],
        message: `${r} is listed twice`,
        name: 'ValidationError',
      });
  });
  const { ids, missing } = await membershipIdsByDocumentIds(tx, orgId, [...new Set(refs)]);
  for (const m of missing)
    errors.push({
      path: ['members', refs.indexOf(m), 'membership'],
      message: `no member ${m} in this organization`,
      name: 'ValidationError',
    });
  if (forInbox && errors.length === 0) {
    // Conversations assigned to a viewer would wait forever: viewers read conversations but cannot answer them.
    const roles = await repo.rolesOf(tx, orgId, [...ids.values()]);
    list.forEach((m, i) => {
      if (roles.get(ids.get(m.membership) as number) === 'viewer')
        errors.push({
          path: ['members', i, 'membership'],
          message: `${m.membership} is a viewer: an inbox queue needs members who can answer conversations (member role or higher)`,
          name: 'ValidationError',
        });
    });
  }
  if (errors.length) throw validationError(errors[0].message, errors);
  return list.map((m) => ({
    membershipId: ids.get(m.membership) as number,
    weight: m.weight ?? 1,
    active: m.active ?? true,
  }));
}

export async function listQueues(ctx: TenantContext, query: ListQueryInput) {
  requireFeature(ctx, 'distribution');
  const q = compileListQuery(repo.queueModel, query, 'name:asc');
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listQueues(tx, ctx.orgId, q);
    const members = await repo.membersOf(
      tx,
      ctx.orgId,
      rows.map((r) => r.id),
    );
    return listPage(
      rows.map((r) => toQueue(r, members)),
      total,
      q,
    );
  });
}

export async function getQueue(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'distribution');
  return ctx.transaction((tx) => present(tx, ctx.orgId, documentId));
}

/** The queue's target: exactly one of board (documentId) and inbox (numeric id), of this organization. */
async function resolveTarget(tx: Tx, ctx: TenantContext, input: QueueCreateInput) {
  if ((input.board === undefined) === (input.inbox === undefined))
    throw validationError('Give exactly one of board (a board documentId) or inbox (a numeric inbox id)', [
      {
        path: [input.board === undefined ? 'board' : 'inbox'],
        message:
          'a queue assigns the cards of one board or the conversations of one inbox: give one of the two',
        name: 'ValidationError',
      },
    ]);
  if (input.board !== undefined) {
    const { board } = await loadBoardForRead(tx, ctx, input.board).catch(unknownBoard(input.board));
    return { boardId: board.id, inboxId: null };
  }
  requireFeature(ctx, 'inbox');
  const inbox = input.inbox as number;
  const row = await findInboxOr404(tx, ctx.orgId, inbox).catch((err) => {
    if (err instanceof AppError && err.errorName === 'NotFoundError')
      throw validationError(`No inbox ${inbox} in this organization`, [
        {
          path: ['inbox'],
          message: `no inbox ${inbox} in this organization (GET /inboxes lists them)`,
          name: 'ValidationError',
        },
      ]);
    throw err;
  });
  return { boardId: null, inboxId: row.inbox.id };
}

export async function createQueue(ctx: TenantContext, input: QueueCreateInput) {
  requireFeature(ctx, 'distribution');
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const target = await resolveTarget(tx, ctx, input);
    const list = await resolveMembers(tx, ctx.orgId, input.members, target.inboxId !== null);
    const row = await repo
      .insertQueue(tx, ctx.orgId, {
        name: input.name,
        ...target,
        strategy: input.strategy,
        active: input.active ?? true,
      })
      .catch(
        onUnique(
          ['board', 'inbox'],
          `The ${target.inboxId === null ? 'board' : 'inbox'} already has a distribution queue: change that one (PUT)`,
        ),
      );
    await repo.setMembers(tx, ctx.orgId, row.id, list);
    await audit(tx, ctx, 'distribution_queue.created', row.documentId);
    return present(tx, ctx.orgId, row.documentId);
  });
}

export async function updateQueue(ctx: TenantContext, documentId: string, input: QueueUpdateInput) {
  requireFeature(ctx, 'distribution');
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findQueue(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Distribution queue');
    const { members, ...values } = input;
    await repo.lockQueue(tx, ctx.orgId, row.id);
    if (members)
      await repo.setMembers(
        tx,
        ctx.orgId,
        row.id,
        await resolveMembers(tx, ctx.orgId, members, row.inboxId !== null),
      );
    await repo.updateQueue(tx, ctx.orgId, row.id, values);
    await audit(tx, ctx, 'distribution_queue.updated', documentId);
    return present(tx, ctx.orgId, documentId);
  });
}

export async function deleteQueue(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'distribution');
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    const row = await repo.findQueue(tx, ctx.orgId, documentId);
    if (!row) throw notFound('Distribution queue');
    await repo.deleteQueue(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'distribution_queue.deleted', documentId);
    return { documentId, deleted: true as const };
  });
}
