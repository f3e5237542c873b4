import type { Plan } from '../../config.js';
import { isoRequired } from '../../platform/http/schemas.js';
import type { Role } from '../../platform/tenancy/context.js';
import { userRefOf } from '../../platform/tenancy/memberships.js';
import type { MembershipRow } from './repo.js';
import { effectiveRetention } from './retention.js';

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

/** An organization as the API shows it (spec: Organization), with the caller's role in it. */
export function toOrganization(
  row: {
    documentId: string;
    name: string;
    slug: string;
    plan: string;
    timeZone: string;
    retention: Record<string, number | null>;
    marketingRequiresConsent: boolean;
    consentStopKeywords: string[];
    deletionScheduledAt: Date | null;
    createdAt: Date;
    updatedAt: Date;
  },
  role: Role,
) {
  return {
    documentId: row.documentId,
    name: row.name,
    slug: row.slug,
    plan: row.plan as Plan,
    timeZone: row.timeZone,
    role,
    retention: effectiveRetention(row.retention),
    marketingRequiresConsent: row.marketingRequiresConsent,
    consentStopKeywords: row.consentStopKeywords,
    deletionScheduledAt: row.deletionScheduledAt?.toISOString() ?? null,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}
