import { and, count, eq, sql } from 'drizzle-orm';
import type { Executor, Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import type { Role } from '../../platform/tenancy/context.js';
import { memberships } from '../organizations/table.js';
import { users } from '../users/table.js';
import { invitations } from './table.js';

/** The list shows pending invitations only (expired ones included, so they can be renewed or revoked). */
export const invitationModel: QueryModel = {
  table: 'invitations',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    email: { column: 'email', type: 'string' },
    role: { column: 'role', type: 'string' },
    expiresAt: { column: 'expires_at', type: 'datetime' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  privateFields: ['tokenHash', 'token_hash', 'token'],
};

const columns = {
  id: invitations.id,
  organizationId: invitations.organizationId,
  documentId: invitations.documentId,
  email: invitations.email,
  role: invitations.role,
  status: invitations.status,
  expiresAt: invitations.expiresAt,
  createdAt: invitations.createdAt,
  updatedAt: invitations.updatedAt,
  inviterDocumentId: memberships.documentId,
  inviterUsername: users.username,
  inviterEmail: users.email,
  inviterBlocked: users.blocked,
  inviterName: users.name,
};
export type InvitationRow = {
  id: number;
  organizationId: number;
  documentId: string;
  email: string;
  role: Role;
  status: 'pending' | 'accepted' | 'declined';
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  inviterDocumentId: string | null;
  inviterUsername: string | null;
  inviterEmail: string | null;
  inviterBlocked: boolean | null;
  inviterName: string | null;
};

/** Invitations with their inviter's MembershipRef (null once the inviter left). */
function selectInvitations(tx: Tx) {
  return tx
    .select(columns)
    .from(invitations)
    .leftJoin(
      memberships,
      and(
        eq(memberships.organizationId, invitations.organizationId),
        eq(memberships.id, invitations.invitedByMembershipId),
      ),
    )
    .leftJoin(users, eq(users.id, memberships.userId));
}

/**
 * Creates the pending invitation of `email`, or refreshes the one already pending (new token, role, inviter
 * and expiry): the old link stops working and there is never a second pending invitation for an address.
 */
export async function upsertPendingInvitation(
  tx: Tx,
  orgId: number,
  input: {
    email: string;
    role: Role;
    tokenHash: string;
    expiresAt: Date;
    invitedByMembershipId: number | null;
  },
) {
  const [row] = await tx
    .insert(invitations)
    .values({ organizationId: orgId, documentId: newDocumentId(), status: 'pending', ...input })
    .onConflictDoUpdate({
      target: [invitations.organizationId, invitations.email],
      targetWhere: sql`status = 'pending'`,
      set: {
        role: input.role,
        tokenHash: input.tokenHash,
        expiresAt: input.expiresAt,
        invitedByMembershipId: input.invitedByMembershipId,
        updatedAt: new Date(),
      },
    })
    .returning({ documentId: invitations.documentId });
  return (await findInvitation(tx, orgId, row.documentId))!;
}

export async function findInvitation(tx: Tx, orgId: number, documentId: string) {
  const [row] = await selectInvitations(tx).where(
    and(eq(invitations.organizationId, orgId), eq(invitations.documentId, documentId)),
  );
  return row as InvitationRow | undefined;
}

export async function listPendingInvitations(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(invitations.organizationId, orgId), eq(invitations.status, 'pending'), q.where);
  const rows = await selectInvitations(tx).where(where).orderBy(q.orderBy).offset(q.offset).limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(invitations).where(where));
  return { rows: rows as InvitationRow[], total };
}

/** Revoking deletes a pending invitation (its link then finds nothing); answers whether there was one. */
export async function deletePendingInvitation(tx: Tx, orgId: number, documentId: string) {
  const rows = await tx
    .delete(invitations)
    .where(
      and(
        eq(invitations.organizationId, orgId),
        eq(invitations.documentId, documentId),
        eq(invitations.status, 'pending'),
      ),
    )
    .returning({ id: invitations.id });
  return rows.length > 0;
}

/**
 * The organization of the invitation a link's token names. Runs on `db.system` (outside RLS): the link has no
 * tenant; it returns the organization id only, and everything after it runs in that organization's transaction.
 */
export async function findInvitationOrganization(system: Executor, tokenHash: string) {
  const [row] = await system
    .select({ organizationId: invitations.organizationId })
    .from(invitations)
    .where(eq(invitations.tokenHash, tokenHash))
    .limit(1);
  return row?.organizationId;
}

/** The invitation of a token; `lock`: two responses to one link run one after the other. */
export async function findInvitationByToken(tx: Tx, orgId: number, tokenHash: string, lock = false) {
  const query = selectInvitations(tx).where(
    and(eq(invitations.organizationId, orgId), eq(invitations.tokenHash, tokenHash)),
  );
  const [row] = lock ? await query.for('update', { of: invitations }) : await query;
  return row as InvitationRow | undefined;
}

export async function markResponded(tx: Tx, orgId: number, id: number, status: 'accepted' | 'declined') {
  const now = new Date();
  await tx
    .update(invitations)
    .set({ status, respondedAt: now, updatedAt: now })
    .where(and(eq(invitations.organizationId, orgId), eq(invitations.id, id)));
}
