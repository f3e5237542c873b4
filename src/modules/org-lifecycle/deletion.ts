import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { type Database, type Executor, queryRows } from '../../platform/db/client.js';
import { deleteOrganizationOauthRecords } from '../oauth/index.js';
import { ident, tenantTables } from './catalogue.js';
import { removeOrganizationFiles } from './files.js';

/**
 * An organization's deletion once its grace period is over (docs/lgpd.md, "Organizations that leave"). The job
 * first claims the organization (claimDeletion: from then on the deletion cannot be cancelled and its API refuses
 * writes) and removes its background jobs; then every row of every tenant table (the catalogue's, children
 * first), in batches of `batch` rows each in its own tenant transaction (row-level security keeps each statement
 * inside the organization), repeated until a whole pass finds nothing (a trigger or a write already under way may
 * add rows meanwhile); then its jobs again, its OAuth records, its files and the organization itself.
 */
export const DELETION_BATCH = 1000;

/**
 * The claim, one statement: the organization is marked as being deleted only while its deletion is scheduled and
 * due; a cancel that committed first leaves nothing to claim (false). A claim already made (a run that stopped
 * half way) holds: the deletion resumes.
 */
export async function claimDeletion(ex: Executor, orgId: number, now = new Date()) {
  const rows = await queryRows<{ id: number }>(
    ex,
    sql`update organizations set deletion_started_at = coalesce(deletion_started_at, now()), updated_at = now()
        where id = ${orgId} and deletion_scheduled_at <= ${now}
        returning id`,
  );
  return rows.length === 1;
}

export async function deleteOrganizationData(
  db: Database,
  config: Pick<Config, 'CRM_DATA_DIR'>,
  orgId: number,
  batch = DELETION_BATCH,
) {
  let jobs = await removeOrganizationJobs(db.system, orgId);
  const tables = (await tenantTables(db.system)).reverse();
  let rows = 0;
  for (let pass = 0; pass < 10; pass++) {
    let found = 0;
    for (const table of tables) {
      for (;;) {
        const n = await db.tenantTransaction(orgId, (tx) => deleteBatch(tx, table.name, orgId, batch));
        found += n;
        if (n < batch) break;
      }
    }
    rows += found;
    if (!found) break;
  }
  jobs += await removeOrganizationJobs(db.system, orgId);
  const oauthRecords = await deleteOrganizationOauthRecords(db.system, orgId);
  await removeOrganizationFiles(config, orgId);
  await db.system.execute(sql`delete from organizations where id = ${orgId}`);
  return { rows, jobs, oauthRecords };
}

async function deleteBatch(
  tx: Parameters<Parameters<Database['tenantTransaction']>[1]>[0],
  table: string,
  orgId: number,
  batch: number,
) {
  const t = ident(table);
  const [row] = await queryRows<{ n: number }>(
    tx,
    sql`with gone as (
          delete from ${sql.raw(t)} where ctid = any(array(
            select ctid from ${sql.raw(t)} where organization_id = ${orgId} limit ${batch}))
          returning 1)
        select count(*)::int as n from gone`,
  );
  return row?.n ?? 0;
}

/**
 * The organization's background jobs, queued, running or archived (pg-boss; tenant jobs name their organization
 * as `orgId`, mail jobs included): gone, so none runs for it again. Answers how many.
 */
export async function removeOrganizationJobs(ex: Executor, orgId: number) {
  let n = 0;
  for (const table of ['job', 'archive']) {
    const [exists] = await queryRows<{ t: string | null }>(
      ex,
      sql`select to_regclass(${`pgboss.${table}`})::text as t`,
    );
    if (!exists.t) continue;
    const [row] = await queryRows<{ n: number }>(
      ex,
      sql`with gone as (delete from ${sql.raw(`pgboss.${table}`)} where data->>'orgId' = ${String(orgId)} returning 1)
          select count(*)::int as n from gone`,
    );
    n += row.n;
  }
  return n;
}

/** The organizations whose deletion is due (their grace period is over), claimed and deleted one after another. */
export async function deleteDueOrganizations(
  db: Database,
  config: Pick<Config, 'CRM_DATA_DIR'>,
  now = new Date(),
) {
  const due = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where deletion_scheduled_at <= ${now} order by deletion_scheduled_at, id`,
  );
  const deleted: number[] = [];
  for (const { id } of due) {
    if (!(await claimDeletion(db.system, id, now))) continue;
    await deleteOrganizationData(db, config, id);
    deleted.push(id);
  }
  return deleted;
}
