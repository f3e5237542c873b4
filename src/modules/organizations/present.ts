import { isoRequired } from '../../platform/http/schemas.js';
import { userRefOf } from '../../platform/tenancy/memberships.js';
import type { MembershipRow } from './repo.js';

/** A membership as the API shows it (spec: Membership): the invitations module answers with it too. */
export function toMembership(row: MembershipRow) {
  return {
    documentId: row.documentId,
    role: row.role,
    user: userRefOf(row),
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}
