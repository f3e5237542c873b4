import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../platform/db/client.js';
import type { CompiledList, QueryModel } from '../../platform/http/list-query.js';

const actorModel: QueryModel = {
  table: 'users',
  global: true,
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    username: { column: 'username', type: 'string' },
    email: { column: 'email', type: 'string' },
  },
  privateFields: ['password', 'passwordHash'],
};

export const auditLogModel: QueryModel = {
  table: 'audit_log',
  fields: {
    id: { column: 'id', type: 'number', sortable: true },
    action: { column: 'action', type: 'string', sortable: true },
    target: { column: 'entity_document_id', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime', sortable: true },
  },
  relations: {
    actor: {
      model: () => actorModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."actor_user_id"`),
      foreignKey: 'actor_user_id',
    },
  },
};

export interface AuditRow {
  id: number;
  action: string;
  target: string | null;
  data: unknown;
  createdAt: Date | string;
  actorDocumentId: string | null;
  actorUsername: string | null;
  actorEmail: string | null;
}

export async function listAuditLog(tx: Executor, orgId: number, q: CompiledList, extra: SQL) {
  const where = sql`audit_log.organization_id = ${orgId} and ${q.where} and ${extra}`;
  const rows = await queryRows<AuditRow>(
    tx,
    sql`select audit_log.id, audit_log.action, audit_log.entity_document_id as target, audit_log.data,
               audit_log.created_at as "createdAt", u.document_id as "actorDocumentId",
               u.username as "actorUsername", u.email as "actorEmail"
        from audit_log left join users u on u.id = audit_log.actor_user_id
        where ${where} order by ${q.orderBy} offset ${q.offset} limit ${q.pageSize}`,
  );
  const total =
    q.withCount === false
      ? undefined
      : (await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from audit_log where ${where}`))[0]!
          .n;
  return { rows, total };
}
