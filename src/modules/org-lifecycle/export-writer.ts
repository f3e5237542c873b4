import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { type SQL, sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { buildSchemaVersion } from '../../platform/backup/backup.js';
import { TarWriter } from '../../platform/backup/tar.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import { SOFTWARE_VERSION } from '../../platform/version.js';
import {
  EXPORT_PAGE,
  type ExportedUser,
  type ExportHeader,
  type ExportManifest,
  ORG_EXPORT_FORMAT,
  ORG_EXPORT_FORMAT_VERSION,
} from './archive-format.js';
import { ident, type TenantTable, tenantTables } from './catalogue.js';
import { EXPORTED_FILE_AREAS, orgFilesDir } from './files.js';

/**
 * Streams the organization's archive (archive-format.ts) into `out`. Each page of rows is read in its own tenant
 * transaction (row-level security: only this organization's rows), so a large organization never holds the
 * database (PGlite has one connection) for the whole export.
 */
export async function writeOrganizationArchive(
  db: Database,
  config: Pick<Config, 'CRM_DATA_DIR'>,
  orgId: number,
  out: Writable,
): Promise<ExportManifest> {
  const gzip = createGzip({ level: 6 });
  const piping = pipeline(gzip, out);
  const tar = new TarWriter(gzip);
  const manifest: ExportManifest = { rows: {}, files: [] };
  try {
    const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
    await tar.addBuffer('organization.json', json(await exportHeader(db, orgId)));
    for (const table of await tenantTables(db.system)) {
      manifest.rows[table.name] = 0;
      let part = 0;
      for await (const lines of tablePages(db, orgId, table)) {
        manifest.rows[table.name]! += lines.length;
        const name = `tables/${table.name}/${String(++part).padStart(6, '0')}.ndjson`;
        await tar.addBuffer(name, Buffer.from(`${lines.join('\n')}\n`));
      }
    }
    for (const area of EXPORTED_FILE_AREAS) {
      const dir = orgFilesDir(config, area, orgId);
      const names = await readdir(dir).catch(() => [] as string[]);
      for (const name of names.sort()) {
        const info = await stat(join(dir, name)).catch(() => undefined);
        if (!info?.isFile()) continue;
        manifest.files.push(
          await tar.addFile(`files/${area}/${name}`, join(dir, name), info.size, info.mtime),
        );
      }
    }
    await tar.addBuffer('manifest.json', json(manifest));
    await tar.finish();
    await piping;
    return manifest;
  } catch (err) {
    gzip.destroy(err as Error);
    await piping.catch(() => {});
    throw err;
  }
}

async function exportHeader(db: Database, orgId: number): Promise<ExportHeader> {
  const [org] = await queryRows<{ row: ExportHeader['organization'] }>(
    db.system,
    sql`select row_to_json(o) as "row" from organizations o where o.id = ${orgId}`,
  );
  if (!org) throw new Error(`organization ${orgId} does not exist`);
  const users = await queryRows<ExportedUser>(
    db.system,
    sql`select u.id, u.document_id as "documentId", u.username, u.email, u.blocked, u.confirmed
        from users u where u.id in (select m.user_id from memberships m where m.organization_id = ${orgId})
        order by u.id`,
  );
  return {
    format: ORG_EXPORT_FORMAT,
    formatVersion: ORG_EXPORT_FORMAT_VERSION,
    software: SOFTWARE_VERSION,
    schema: buildSchemaVersion(),
    exportedAt: new Date().toISOString(),
    organization: org.row,
    users,
  };
}

/** The table's rows of the organization as JSON lines, a page at a time, in primary key order (keyset). */
async function* tablePages(db: Database, orgId: number, table: TenantTable): AsyncGenerator<string[]> {
  const t = sql.raw(ident(table.name));
  const key = table.key.map(ident).join(', ');
  let after: unknown[] | undefined;
  for (;;) {
    const rows = await db.tenantTransaction(orgId, (tx) =>
      queryRows<{ j: string; k: unknown[] | null }>(
        tx,
        key
          ? sql`select row_to_json(t)::text as j, json_build_array(${sql.raw(key)}) as k from ${t} t
                where organization_id = ${orgId} ${keyAfter(key, after)}
                order by ${sql.raw(key)} limit ${EXPORT_PAGE}`
          : sql`select row_to_json(t)::text as j, null as k from ${t} t where organization_id = ${orgId}`,
      ),
    );
    if (rows.length) yield rows.map((r) => r.j);
    if (!key || rows.length < EXPORT_PAGE) return;
    after = rows[rows.length - 1]!.k as unknown[];
  }
}

function keyAfter(key: string, after: unknown[] | undefined): SQL {
  if (!after) return sql``;
  return sql`and (${sql.raw(key)}) > (${sql.join(
    after.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}
