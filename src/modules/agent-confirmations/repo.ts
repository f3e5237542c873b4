import { and, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { agentConfirmations } from './table.js';

export type ConfirmationRow = typeof agentConfirmations.$inferSelect;
type NewConfirmation = Pick<
  typeof agentConfirmations.$inferInsert,
  'membershipId' | 'tool' | 'summary' | 'arguments' | 'argumentsHash' | 'preview' | 'expiresAt'
>;

export async function insertConfirmation(tx: Tx, orgId: number, values: NewConfirmation) {
  const [row] = await tx
    .insert(agentConfirmations)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning();
  return row;
}

const own = (orgId: number, membershipId: number, documentId: string) =>
  and(
    eq(agentConfirmations.organizationId, orgId),
    eq(agentConfirmations.membershipId, membershipId),
    eq(agentConfirmations.documentId, documentId),
  );

/** The member's own confirmation (another member's, or another organization's, is absent). */
export async function findOwn(tx: Tx, orgId: number, membershipId: number, documentId: string, lock = false) {
  const q = tx
    .select()
    .from(agentConfirmations)
    .where(own(orgId, membershipId, documentId));
  const [row] = lock ? await q.for('update') : await q;
  return row as ConfirmationRow | undefined;
}

export async function setStatus(
  tx: Tx,
  row: ConfirmationRow,
  values: Partial<Pick<ConfirmationRow, 'status' | 'decidedAt' | 'usedAt' | 'expiresAt'>>,
) {
  const [updated] = await tx
    .update(agentConfirmations)
    .set(values)
    .where(and(eq(agentConfirmations.organizationId, row.organizationId), eq(agentConfirmations.id, row.id)))
    .returning();
  return updated;
}

/** Maintenance: requests that expired more than a day ago, in every organization (the system connection). */
export async function pruneAgentConfirmations(ex: Executor): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    ex,
    sql`with gone as (delete from agent_confirmations where expires_at < now() - interval '1 day' returning 1)
        select count(*)::int as n from gone`,
  );
  return row.n;
}
