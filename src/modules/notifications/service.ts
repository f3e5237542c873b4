import type { z } from 'zod';
import { notFound } from '../../platform/http/errors.js';
import { pageWindow, windowPage } from '../../platform/http/list-query.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';
import type { notificationQuery } from './schema.js';

function toNotification(r: repo.NotificationRow) {
  return {
    documentId: r.documentId,
    type: r.type,
    title: r.title,
    body: r.body,
    subject: r.subject,
    read: r.readAt != null,
    readAt: iso(r.readAt),
    createdAt: isoRequired(r.createdAt),
  };
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
    return windowPage(rows.map(toNotification), total, w);
  });
}

export async function readNotification(ctx: TenantContext, documentId: string) {
  return ctx.transaction(async (tx) => {
    const row = await repo.markRead(tx, ctx.orgId, ctx.membershipId, documentId);
    if (!row) throw notFound('Notification');
    return toNotification(row);
  });
}
