import { type SQL, sql } from 'drizzle-orm';
import type { Database } from './client.js';

/**
 * The organizations whose background work this process does (PostgreSQL with CRM_JOBS_NAMESPACE set).
 *
 * An organization records the namespace of the process that created it (`organizations.jobs_namespace`, the
 * session setting `crm.jobs_namespace` as a column default). Job queues are already apart per namespace; the
 * periodic passes that scan shared tables (events to dispatch, automation runs, webhook and conversion
 * deliveries, campaign watchdog) add this condition, so processes of another namespace on the same database
 * (the test suite's files, each with its own outbound settings) never take each other's work. Deployments leave
 * the namespace empty: no condition, every organization.
 */
export function ownOrganizations(db: Database, organizationId: SQL): SQL {
  if (!db.namespace) return sql``;
  return sql`and ${organizationId} in (select id from organizations where jobs_namespace = ${db.namespace})`;
}

/** The column default recording the creating process's namespace (empty when unset, and on PGlite). */
export const JOBS_NAMESPACE_DEFAULT = sql`coalesce(current_setting('crm.jobs_namespace', true), '')`;
