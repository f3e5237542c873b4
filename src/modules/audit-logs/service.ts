import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { compileListQuery, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { type AuditRow, auditLogModel, listAuditLog } from './repo.js';
import type { auditLogQuery } from './schema.js';

const toEntry = (r: AuditRow) => ({
  id: Number(r.id),
  action: r.action,
  actor: r.actorDocumentId
    ? { documentId: r.actorDocumentId, username: r.actorUsername!, email: r.actorEmail! }
    : null,
  target: r.target,
  data: r.data ?? null,
  createdAt: isoRequired(r.createdAt),
});

/** A date alone: `from` is its start, `to` the end of that day (UTC). */
function instant(value: string, end: boolean): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value))
    return new Date(Date.parse(`${value}T00:00:00Z`) + (end ? 86_400_000 : 0));
  return new Date(value);
}

/** The shortcut parameters as conditions (ANDed with `filters`). */
function shortcuts(q: z.infer<typeof auditLogQuery>): SQL {
  const parts: SQL[] = [sql`true`];
  if (q.action) parts.push(sql`audit_log.action = ${q.action}`);
  if (q.target) parts.push(sql`audit_log.entity_document_id = ${q.target}`);
  if (q.actor)
    parts.push(
      sql`audit_log.actor_user_id in (select id from users where document_id = ${q.actor} or email = ${q.actor.toLowerCase()} or username = ${q.actor})`,
    );
  if (q.from) parts.push(sql`audit_log.created_at >= ${instant(q.from, false)}`);
  if (q.to) parts.push(sql`audit_log.created_at < ${instant(q.to, true)}`);
  return sql.join(parts, sql` and `);
}

/** `GET /audit-logs`: the organization's audit log, newest first (owners and admins). */
export async function listAuditLogs(ctx: TenantContext, query: z.infer<typeof auditLogQuery>) {
  requireRole(ctx, 'admin');
  const { action, actor, target, from, to, ...list } = query;
  const q = compileListQuery(auditLogModel, list, 'id:desc');
  const { rows, total } = await ctx.transaction((tx) =>
    listAuditLog(tx, ctx.orgId, q, shortcuts({ action, actor, target, from, to })),
  );
  return listPage(rows.map(toEntry), total, q);
}
