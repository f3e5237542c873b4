import type { Board } from '../api';
import { getSession } from '../session';

/** Organization owners and admins: they create boards and share filters with the whole organization. */
export const isOrgAdmin = () => ['owner', 'admin'].includes(getSession()?.org?.role ?? '');

/**
 * Whether the signed-in person may change a board's structure (phases, fields, tags, people): an admin, or a
 * member who owns the board — the service's rule (boards/access.ts canConfigure); the service still decides.
 */
export function canConfigure(b: Board): boolean {
  const s = getSession();
  if (!s?.org || s.org.role === 'viewer') return false;
  return isOrgAdmin() || (!!b.owner?.user && b.owner.user.email === s.user.email);
}
