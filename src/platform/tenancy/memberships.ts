import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../db/client.js';
import type { QueryModel } from '../http/list-query.js';

// Memberships are how every area names people (assignees, owners, attendees, team members). The tables belong
// to the organizations and users modules; the platform reads them by name, as the auth plugin does.

/** The spec's UserRef plus the display name (issue 31): null until the person sets one. */
export interface UserRef {
  username: string;
  email: string;
  blocked: boolean;
  name: string | null;
}

/** A UserRef from a row's columns (one way to build it everywhere). */
export const userRefOf = (r: { username: string; email: string; blocked: boolean; name: string | null }) => ({
  username: r.username,
  email: r.email,
  blocked: r.blocked,
  name: r.name ?? null,
});

/** The spec's MembershipRef: the membership's documentId and its user's public fields. */
export interface MembershipRef {
  documentId: string;
  user: UserRef;
}

/** The list-query model of memberships (filters and populate of `assignees`, `owner`, `members`…). */
export const membershipModel: QueryModel = {
  table: 'memberships',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    role: { column: 'role', type: 'string' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
  relations: {
    user: {
      model: () => userModel,
      on: (outer, inner) => sql.raw(`"${inner}"."id" = "${outer}"."user_id"`),
    },
  },
  populate: ['user'],
};

const userModel: QueryModel = {
  table: 'users',
  global: true,
  fields: {
    username: { column: 'username', type: 'string' },
    email: { column: 'email', type: 'string' },
    blocked: { column: 'blocked', type: 'boolean' },
    name: { column: 'name', type: 'string' },
  },
  privateFields: ['password', 'passwordHash', 'resetPasswordToken', 'confirmationToken'],
};

/** MembershipRefs for a set of internal membership ids (used by every area that shows people). */
export async function membershipRefsByIds(tx: Tx, orgId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, MembershipRef>();
  const rows = await queryRows<{
    id: number;
    documentId: string;
    username: string;
    email: string;
    blocked: boolean;
    name: string | null;
  }>(
    tx,
    sql`select m.id, m.document_id as "documentId", u.username, u.email, u.blocked, u.name
      from memberships m join users u on u.id = m.user_id
      where m.organization_id = ${orgId} and m.id in ${ids}`,
  );
  return new Map<number, MembershipRef>(
    rows.map((r) => [r.id, { documentId: r.documentId, user: userRefOf(r) }]),
  );
}

/** Internal ids of memberships named by documentId; unknown ones are reported back. */
export async function membershipIdsByDocumentIds(tx: Tx, orgId: number, documentIds: string[]) {
  if (documentIds.length === 0) return { ids: new Map<string, number>(), missing: [] as string[] };
  const rows = await queryRows<{ id: number; documentId: string }>(
    tx,
    sql`select id, document_id as "documentId" from memberships
      where organization_id = ${orgId} and document_id in ${documentIds}`,
  );
  const ids = new Map(rows.map((r) => [r.documentId, r.id]));
  return { ids, missing: documentIds.filter((d) => !ids.has(d)) };
}
