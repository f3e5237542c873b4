import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../platform/db/client.js';

/**
 * An organization's OAuth records, gone with the organization (docs/lgpd.md, "Deletion"): the grants of its
 * accounts (`<userId>.<orgId>`, adapter.ts), every record issued under them (codes, access and refresh tokens),
 * the sessions signed in as one of its accounts and what Settings showed of the grants (GrantInfo). Answers how
 * many records went.
 */
export async function deleteOrganizationOauthRecords(ex: Executor, orgId: number) {
  const account = `^[0-9]+\\.${orgId}$`;
  const [row] = await queryRows<{ n: number }>(
    ex,
    sql`with grants as (
          select id from oauth_records where kind = 'Grant' and payload->>'accountId' ~ ${account}
        ), gone as (
          delete from oauth_records
          where payload->>'accountId' ~ ${account}
             or grant_id in (select id from grants)
             or (kind = 'GrantInfo' and payload->>'organizationId' = ${String(orgId)})
          returning 1)
        select count(*)::int as n from gone`,
  );
  return row?.n ?? 0;
}
