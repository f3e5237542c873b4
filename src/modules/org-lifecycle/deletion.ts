import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import { ident, tenantTables } from './catalogue.js';
import { removeOrganizationFiles } from './files.js';

/**
 * An organization's deletion once its grace period is over (docs/lgpd.md, "Organizations that leave"): every
 * row of every tenant table (the catalogue's, children first), in batches of `batch` rows each in its own tenant
 * transaction (row-level security keeps each statement inside the organization), repeated until a whole pass
 * finds nothing (a trigger or a late write may add rows meanwhile); then its files and the organization itself.
 */
export const DELETION_BATCH = 1000;

export async function deleteOrganizationData(
  db: Database,
  config: Pick<Config, 'CRM_DATA_DIR'>,
  orgId: number,
  batch = DELETION_BATCH,
) {
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
  await removeOrganizationFiles(config, orgId);
  await db.system.execute(sql`delete from organizations where id = ${orgId}`);
  return { rows };
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

/** The organizations whose deletion is due (their grace period is over), deleted one after another. */
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
    await deleteOrganizationData(db, config, id);
    deleted.push(id);
  }
  return deleted;
}
