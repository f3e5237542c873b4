// The organizations module's public face: what other modules may use (docs/decisions.md, "Modules talk through index.ts").

export { toMembership } from './present.js';
export {
  ensureMembership,
  findMembershipByUser,
  findOrganizationById,
  listUserOrganizations,
  organizationTimeZone,
} from './repo.js';
export { canonicalTimeZone, membership } from './schema.js';
