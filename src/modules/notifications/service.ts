import type { z } from 'zod';
import type { Tx } from '../../platform/db/client.js';
import { notFound } from '../../platform/http/errors.js';
import { pageWindow, windowPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import * as repo from './repo.js';
import type { notificationQuery } from './schema.js';

async function present(tx: Tx, orgId: number, rows: repo.NotificationRow[]) {
  const actors = await membershipRefsByIds(tx, orgId, [
    ...new Set(rows.flatMap((r) => (r.actorMembershipId === null ? [] : [r.actorMembershipId]))),
  ]);
  return rows.map((r) => ({
    documentId: r.documentId,
    type: r.type,
    title: r.title,
    body: r.body,
    subject: r.subject,
    actor: r.actorMembershipId === null ? null : (actors.get(r.actorMembershipId) ?? null),
    read: r.readAt != null,
    readAt: iso(r.readAt),
    createdAt: isoRequired(r.createdAt),
  }));
}

/** The caller's own notifications: nobody reads another member's, admins included. */
export async function listNotifications(ctx: TenantContext, query: z.infer<typeof notificationQuery>) {
  const w = pageWindow(query.pagination);
  return ctx.transaction(async (tx) => {
    const { rows, total } = await repo.listNotifications(tx, ctx.orgId, ctx.membershipId, {
      unread: query.unread === 'true',
      offset: w.offset,
      limit: w.pageSize,
    });
    return windowPage(await present(tx, ctx.orgId, rows), total, w);
  });
}

export async function readNotification(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => {
    const row = await repo.markRead(tx, ctx.orgId, ctx.membershipId, documentId);
    if (!row) throw notFound('Notification');
    return (await present(tx, ctx.orgId, [row]))[0];
  });
}

/** Every unread notification of the caller marked read (the bell's "mark all as read"). */
export async function readAllNotifications(ctx: TenantContext) {
  return ctx.transaction(async (tx) => ({ read: await repo.markAllRead(tx, ctx.orgId, ctx.membershipId) }));
}
