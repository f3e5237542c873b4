import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { buildSchemaVersion, databaseSchemaVersion } from '../../platform/backup/backup.js';
import { readTar, type TarEntry } from '../../platform/backup/tar.js';
import { type Database, type Executor, queryRows } from '../../platform/db/client.js';
import {
  ENTRY,
  type ExportHeader,
  type ExportManifest,
  ImportRefusedError,
  ORG_EXPORT_FORMAT,
  ORG_EXPORT_FORMAT_VERSION,
} from './archive-format.js';
import { ident, type TenantTable, tenantTables } from './catalogue.js';
import { EXPORTED_FILE_AREAS, orgFilesDir } from './files.js';
import { checkUsers, insertUsers } from './import-users.js';

export interface ImportResult {
  organization: { id: number; documentId: string; slug: string; name: string };
  rows: number;
  files: number;
  /** Users the import created: they have no password yet (`crm user password`). */
  createdUsers: string[];
}

/**
 * `crm org import FILE` (docs/lgpd.md): loads an organization export into this database in one transaction,
 * ids kept, then moves its files into place. Refused when the organization (id, documentId or slug) exists here,
 * when a member's user id or e-mail belongs to someone else here, or when the export was taken at another schema
 * version. The modules' triggers are off for the load (the rows are copied as they were, bookkeeping included);
 * every identity sequence is moved past the imported ids.
 */
export async function importOrganizationArchive(
  db: Database,
  config: Pick<Config, 'CRM_DATA_DIR'>,
  file: string,
): Promise<ImportResult> {
  const staging = join(config.CRM_DATA_DIR, `.org-import-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  try {
    const entries = readTar(createReadStream(file).pipe(createGunzip()))[Symbol.asyncIterator]();
    const first = await entries.next();
    if (first.done || first.value.path !== 'organization.json')
      throw new ImportRefusedError(`${file} is not an organization export (no organization.json first)`);
    const header = await checkHeader(db, JSON.parse((await readAll(first.value)).toString('utf8')));
    const users = await checkUsers(db.system, header.users);
    const tables = await tenantTables(db.system);
    const result = await db.system.transaction(async (tx) => {
      await setTriggers(tx, tables, 'DISABLE');
      await tx.execute(
        sql`insert into organizations overriding system value
            select * from json_populate_record(null::organizations, ${JSON.stringify(header.organization)}::json)`,
      );
      const createdUsers = await insertUsers(tx, users);
      const { rows, files } = await loadEntries(tx, header.organization.id, tables, entries, staging);
      await bumpSequences(tx, tables);
      await setTriggers(tx, tables, 'ENABLE');
      return { rows, files, createdUsers };
    });
    await moveFiles(config, staging, header.organization.id);
    const o = header.organization;
    return {
      organization: { id: o.id, documentId: o.document_id, slug: o.slug, name: String(o.name) },
      ...result,
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function checkHeader(db: Database, header: ExportHeader): Promise<ExportHeader> {
  if (header?.format !== ORG_EXPORT_FORMAT || header.formatVersion !== ORG_EXPORT_FORMAT_VERSION)
    throw new ImportRefusedError(
      `not an organization export of format ${ORG_EXPORT_FORMAT} ${ORG_EXPORT_FORMAT_VERSION}`,
    );
  const here = (await databaseSchemaVersion(db)) ?? buildSchemaVersion();
  if (header.schema.migration !== here.migration)
    throw new ImportRefusedError(
      `the export was taken at migration ${header.schema.migration} (crm-service ${header.software}), this database is at ${here.migration}: run the same version on both sides (upgrade the older one first)`,
    );
  const o = header.organization;
  const taken = await queryRows<{ what: string }>(
    db.system,
    sql`select case when id = ${o.id} then 'id ' || id when document_id = ${o.document_id} then 'documentId ' || document_id
               else 'slug ' || slug end as what
        from organizations where id = ${o.id} or document_id = ${o.document_id} or slug = ${o.slug}`,
  );
  if (taken.length)
    throw new ImportRefusedError(
      `an organization with ${taken.map((t) => t.what).join(', ')} already exists in this database: the import keeps ids and does not merge (delete that organization first, or import into another instance)`,
    );
  return header;
}

async function readAll(entry: TarEntry): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of entry.body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

async function setTriggers(tx: Executor, tables: TenantTable[], how: 'DISABLE' | 'ENABLE') {
  for (const t of tables) await tx.execute(sql.raw(`ALTER TABLE ${ident(t.name)} ${how} TRIGGER USER`));
}

/** The entries after the header: table parts inserted, files staged, the manifest checked against both. */
async function loadEntries(
  tx: Executor,
  orgId: number,
  tables: TenantTable[],
  entries: AsyncIterator<TarEntry>,
  staging: string,
) {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const rows: Record<string, number> = {};
  const files: ExportManifest['files'] = [];
  for (;;) {
    const next = await entries.next();
    if (next.done) throw new ImportRefusedError('the export is incomplete (no manifest.json at its end)');
    const entry = next.value;
    if (entry.type !== 'file' || !ENTRY.test(entry.path))
      throw new ImportRefusedError(`the export holds an unexpected entry: ${entry.path}`);
    const [kind, name] = entry.path.split('/');
    if (kind === 'tables') {
      const table = byName.get(name!);
      if (!table)
        throw new ImportRefusedError(`the export holds table ${name}, which this database does not have`);
      rows[name!] = (rows[name!] ?? 0) + (await insertPart(tx, orgId, table, await readAll(entry)));
    } else if (kind === 'files') files.push(await stageFile(entry, staging));
    else if (entry.path === 'manifest.json') {
      checkManifest(JSON.parse((await readAll(entry)).toString('utf8')), rows, files);
      return { rows: Object.values(rows).reduce((a, b) => a + b, 0), files: files.length };
    } else throw new ImportRefusedError(`the export holds ${entry.path} out of place`);
  }
}

async function insertPart(tx: Executor, orgId: number, table: TenantTable, body: Buffer) {
  const lines = body.toString('utf8').split('\n').filter(Boolean);
  const cols = table.columns.map(ident).join(', ');
  const [row] = await queryRows<{ n: number }>(
    tx,
    sql`with ins as (
          insert into ${sql.raw(ident(table.name))} (${sql.raw(cols)}) overriding system value
          select ${sql.raw(cols)} from json_populate_recordset(null::${sql.raw(ident(table.name))}, ${`[${lines.join(',')}]`}::json)
          where organization_id = ${orgId}
          returning 1)
        select count(*)::int as n from ins`,
  );
  if (row!.n !== lines.length)
    throw new ImportRefusedError(`rows of ${table.name} belong to another organization than the export's`);
  return row!.n;
}

async function stageFile(entry: TarEntry, staging: string) {
  const path = entry.path.slice('files/'.length);
  await mkdir(join(staging, path, '..'), { recursive: true, mode: 0o700 });
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    entry.body,
    async function* (source) {
      for await (const chunk of source) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
        yield chunk;
      }
    },
    createWriteStream(join(staging, path), { mode: 0o600 }),
  );
  return { path: entry.path, size, sha256: hash.digest('hex') };
}

function checkManifest(
  manifest: ExportManifest,
  rows: Record<string, number>,
  files: ExportManifest['files'],
) {
  for (const [table, n] of Object.entries(manifest.rows ?? {}))
    if ((rows[table] ?? 0) !== n)
      throw new ImportRefusedError(
        `the export is damaged: ${table} should hold ${n} rows, it holds ${rows[table] ?? 0}`,
      );
  const read = new Map(files.map((f) => [f.path, f]));
  if ((manifest.files ?? []).length !== files.length)
    throw new ImportRefusedError('the export is damaged: its files do not match its manifest');
  for (const f of manifest.files ?? []) {
    const got = read.get(f.path);
    if (!got || got.size !== f.size || got.sha256 !== f.sha256)
      throw new ImportRefusedError(`the export is damaged: ${f.path} does not match its manifest`);
  }
}

/** Every identity sequence of the tenant tables, organizations and users past the largest id now stored. */
async function bumpSequences(tx: Executor, tables: TenantTable[]) {
  const columns = [
    ...tables.flatMap((t) => t.identity.map((c) => [t.name, c] as const)),
    ['organizations', 'id'] as const,
    ['users', 'id'] as const,
  ];
  for (const [table, column] of columns)
    await tx.execute(
      sql.raw(`select setval(s, m) from (select pg_get_serial_sequence('${ident(table)}', '${column}') as s,
                 (select max(${ident(column)}) from ${ident(table)}) as m) x
               where m is not null and m > coalesce(pg_sequence_last_value(s::regclass), 0)`),
    );
}

async function moveFiles(config: Pick<Config, 'CRM_DATA_DIR'>, staging: string, orgId: number) {
  for (const area of EXPORTED_FILE_AREAS) {
    const names = await readdir(join(staging, area)).catch(() => [] as string[]);
    const to = orgFilesDir(config, area, orgId);
    if (names.length) await mkdir(to, { recursive: true });
    for (const name of names) await rename(join(staging, area, name), join(to, name));
  }
}
