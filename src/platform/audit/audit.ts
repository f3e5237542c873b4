import { deferStatement, type Tx } from '../db/client.js';
import type { TenantContext } from '../tenancy/context.js';
import { auditLog } from './table.js';

export async function audit(
  tx: Tx,
  // Only who and where: a user acting on an invitation is not yet a member (no full context).
  ctx: Pick<TenantContext, 'orgId' | 'userId'>,
  action: string,
  entityDocumentId: string | null,
  data?: Record<string, unknown>,
) {
  // Nobody reads the insert's answer: it leaves with the transaction's next statement or its commit.
  await deferStatement(
    tx,
    tx
      .insert(auditLog)
      .values({
        organizationId: ctx.orgId,
        actorUserId: ctx.userId,
        action,
        entityDocumentId,
        data: data ?? null,
      })
      .getSQL(),
    true,
  );
}
