import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Tx } from '../../platform/db/client.js';

/**
 * The erasure's sweep (docs/lgpd.md, "Erasure"): after the person's own rows, every text and JSON column of every
 * tenant table is searched for the person's identifiers and each match replaced with `[erased]` — the copies
 * nobody keeps a link to: domain event payloads, webhook delivery bodies, automation runs, notifications, the
 * audit log, stored idempotent responses, other records' notes. Tables are found in the catalogue, so a table
 * added later is swept without a change here. Generated columns follow their sources; the suppression list keeps
 * its hashes (erase-repo.ts); the requests' own table holds ids only; the consent ledger refuses updates.
 */

// The consent ledger is append-only (its own rows are rewritten without proof by erase-repo.ts).
const SKIPPED_TABLES = new Set(['suppressions', 'privacy_requests', 'contact_consents']);

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
}

/** Text and JSON columns of the tenant tables, by table. */
async function tenantTextColumns(ex: Executor) {
  const rows = await queryRows<Column>(
    ex,
    sql`select c.table_name, c.column_name, c.data_type
        from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
          and c.data_type in ('text', 'character varying', 'json', 'jsonb') and c.is_generated = 'NEVER'
          and exists (select 1 from information_schema.columns o where o.table_schema = 'public'
                        and o.table_name = c.table_name and o.column_name = 'organization_id')
        order by c.table_name, c.ordinal_position`,
  );
  const byTable = new Map<string, Column[]>();
  for (const r of rows) {
    if (SKIPPED_TABLES.has(r.table_name)) continue;
    byTable.set(r.table_name, [...(byTable.get(r.table_name) ?? []), r]);
  }
  return byTable;
}

/** `col = scrubbed(col)` when it matches, else itself; and the match test. */
function columnSql(c: Column, pattern: string): { set: SQL; match: SQL } {
  const col = sql.identifier(c.column_name);
  if (c.data_type === 'jsonb' || c.data_type === 'json') {
    const cast = c.data_type === 'json' ? sql`::json` : sql``;
    const match = sql`${col}::text ~* ${pattern}`;
    return {
      set: sql`${col} = case when ${match} then public.crm_scrub_jsonb(${col}::jsonb, ${pattern})${cast} else ${col} end`,
      match,
    };
  }
  const match = sql`${col} ~* ${pattern}`;
  return {
    set: sql`${col} = case when ${match} then public.crm_scrub_text(${col}, ${pattern}) else ${col} end`,
    match,
  };
}

/** One UPDATE per tenant table; answers the rows changed per table (only tables with matches). */
export async function sweepOrganization(tx: Tx, orgId: number, pattern: string) {
  const changed: Record<string, number> = {};
  for (const [table, columns] of await tenantTextColumns(tx)) {
    const parts = columns.map((c) => columnSql(c, pattern));
    const rows = await queryRows<{ n: number }>(
      tx,
      sql`with done as (
            update ${sql.identifier(table)} set ${sql.join(
              parts.map((p) => p.set),
              sql`, `,
            )}
            where organization_id = ${orgId} and (${sql.join(
              parts.map((p) => p.match),
              sql` or `,
            )})
            returning 1)
          select count(*)::int as n from done`,
    );
    if (rows[0].n > 0) changed[table] = rows[0].n;
  }
  return changed;
}

/**
 * The job queue's own copies (pg-boss jobs and their archive: a mail's recipient, a webhook's body): not tenant
 * tables, so swept on the system connection, by the person's identifiers. A job that names its organization
 * (`orgId`, the convention of tenant jobs) is touched only when it is this organization's: another organization's
 * pending sends to the same address are never rewritten. Mail jobs name theirs too (enqueueMail's `orgId`); jobs
 * that name none (mail queued before that) are swept on the identifiers alone (docs/lgpd.md, "Erasure").
 */
export async function sweepJobQueue(ex: Executor, orgId: number, pattern: string) {
  let n = 0;
  for (const table of ['job', 'archive']) {
    const [exists] = await queryRows<{ t: string | null }>(
      ex,
      sql`select to_regclass(${`pgboss.${table}`})::text as t`,
    );
    if (!exists.t) continue;
    const t = sql`pgboss.${sql.identifier(table)}`;
    const rows = await queryRows<{ n: number }>(
      ex,
      sql`with done as (
            update ${t} set data = public.crm_scrub_jsonb(data, ${pattern}),
              output = public.crm_scrub_jsonb(output, ${pattern})
            where coalesce(data->>'orgId', ${String(orgId)}) = ${String(orgId)}
              and (data::text ~* ${pattern} or output::text ~* ${pattern})
            returning 1)
          select count(*)::int as n from done`,
    );
    n += rows[0].n;
  }
  return n;
}
