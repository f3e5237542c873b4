// The organizations module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export { toMembership, toOrganization } from './present.js';
export {
  ensureMembership,
  findMembershipByUser,
  findOrganizationById,
  listUserOrganizations,
  organizationTimeZone,
} from './repo.js';
export {
  effectiveRetention,
  RETENTION_DEFAULTS,
  RETENTION_KINDS,
  type Retention,
  type RetentionKind,
} from './retention.js';
export { canonicalTimeZone, membership, organization } from './schema.js';
