import { mkdir, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import { jobReads } from '../../platform/db/job-reads.js';
import type { Jobs } from '../../platform/jobs/jobs.js';
import { storagePath } from '../cards/index.js';
import { EXPORT_SECTIONS, type ExportSection } from './export-sections.js';
import { EXPORT_TTL_SECONDS, exportFilePath } from './links.js';
import { exportExpiryQueue } from './queues.js';
import type { PrivacyRequestRow } from './repo.js';
import * as repo from './repo.js';
import { ZipFileWriter } from './zip-writer.js';

/**
 * The data export job (docs/lgpd.md, "Access and portability"): every section of export-sections.ts written to
 * `<CRM_DATA_DIR>/exports/<org>/<request>.zip` as `<section>.json` and `<section>.csv`, the person's uploads
 * under `files/`, and `manifest.json` (what each section holds). Then the request is done and downloadable for
 * EXPORT_TTL_SECONDS; a job at the expiry removes the file if nobody took it. An erasure of the contact while the
 * zip is written fails the request (repo.stopExports): the job then removes its file and publishes nothing.
 */

const PAGE = 500;

export interface ExportDeps {
  db: Database;
  config: Config;
  jobs: Pick<Jobs, 'schedule'>;
}

type Row = Record<string, unknown>;

async function* rowsOf(db: Database, section: ExportSection, orgId: number, contactId: number) {
  let after = 0;
  for (;;) {
    const rows = await db.tenantTransaction(orgId, (tx) =>
      queryRows<Row & { _key: number }>(tx, section.page({ orgId, contactId, after, limit: PAGE })),
    );
    for (const { _key, ...row } of rows) yield row;
    if (rows.length < PAGE) return;
    after = Number(rows[rows.length - 1]._key);
  }
}

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  const s = v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One section as JSON, then as CSV (two reads: each file streams alone), answering its row count. */
async function writeSection(
  zip: ZipFileWriter,
  db: Database,
  section: ExportSection,
  orgId: number,
  contactId: number,
) {
  const json = zip.entry(`${section.name}.json`);
  let n = 0;
  await json.write('[');
  for await (const row of rowsOf(db, section, orgId, contactId)) {
    await json.write(`${n++ ? ',' : ''}\n${JSON.stringify(row)}`);
  }
  await json.write('\n]\n');
  await json.end();
  return n;
}

async function writeCsv(
  zip: ZipFileWriter,
  db: Database,
  section: ExportSection,
  orgId: number,
  contactId: number,
) {
  const csv = zip.entry(`${section.name}.csv`);
  let header: string[] | null = null;
  for await (const row of rowsOf(db, section, orgId, contactId)) {
    if (!header) {
      header = Object.keys(row);
      await csv.write(`${header.map(cell).join(',')}\r\n`);
    }
    await csv.write(`${header.map((k) => cell(row[k])).join(',')}\r\n`);
  }
  await csv.end();
}

/** The uploads' bytes, as `files/<file documentId>-<name>`; a file missing on disk is listed as such. */
async function writeFiles(
  zip: ZipFileWriter,
  deps: ExportDeps,
  section: ExportSection,
  orgId: number,
  contactId: number,
) {
  const missing: string[] = [];
  for await (const row of rowsOf(deps.db, section, orgId, contactId)) {
    const path = storagePath(deps.config, String(row.storage_key));
    if (!(await stat(path).catch(() => null))) missing.push(String(row.document_id));
    else await zip.copyFile(`files/${row.document_id}-${String(row.name).replace(/[/\\]/g, '_')}`, path);
  }
  return missing;
}

async function tableExists(db: Database, orgId: number, table: string) {
  const [r] = await db.tenantTransaction(orgId, (tx) =>
    queryRows<{ t: string | null }>(tx, sql`select to_regclass(${`public.${table}`})::text as t`),
  );
  return !!r.t;
}

/**
 * Writes the zip; answers the manifest's counts. The sections are read from the replica when it has replayed
 * everything committed before this job began (jobReads), else from the primary.
 */
async function writeExport(deps: ExportDeps, request: PrivacyRequestRow, path: string) {
  const { orgId, contactId } = { orgId: request.organizationId, contactId: request.contactId };
  const db = await jobReads(deps.db);
  const zip = new ZipFileWriter(path);
  try {
    const counts: Record<string, number> = {};
    let missing: string[] = [];
    for (const section of EXPORT_SECTIONS) {
      if (section.requires && !(await tableExists(db, orgId, section.requires))) continue;
      counts[section.name] = await writeSection(zip, db, section, orgId, contactId);
      await writeCsv(zip, db, section, orgId, contactId);
      if (section.name === 'files')
        missing = await writeFiles(zip, { ...deps, db }, section, orgId, contactId);
    }
    const manifest = {
      request: request.documentId,
      generatedAt: new Date().toISOString(),
      counts,
      missingFiles: missing,
    };
    const m = zip.entry('manifest.json');
    await m.write(JSON.stringify(manifest, null, 2));
    await m.end();
    return { counts, bytes: await zip.close() };
  } catch (err) {
    zip.abort();
    throw err;
  }
}

export async function runDataExport(deps: ExportDeps, request: PrivacyRequestRow) {
  const { organizationId: orgId, id } = request;
  const path = exportFilePath(deps.config, orgId, request.documentId);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    const { counts, bytes } = await writeExport(deps, request, path);
    const expiresAt = new Date(Date.now() + EXPORT_TTL_SECONDS * 1000);
    const published = await deps.db.tenantTransaction(orgId, (tx) =>
      repo.publishExport(tx, orgId, id, { fileBytes: bytes, expiresAt, summary: counts }),
    );
    // An erasure of the contact failed it while it was written: what it read may predate the erasure.
    if (!published) {
      await unlink(path).catch(() => {});
      return;
    }
    await deps.jobs.schedule(exportExpiryQueue, { orgId, requestId: id }, expiresAt);
  } catch (err) {
    await unlink(path).catch(() => {});
    throw err;
  }
}

/** The expiry: the file goes (downloaded or not). A file already gone is fine; another failure throws. */
export async function expireDataExport(config: Config, orgId: number, documentId: string) {
  await unlink(exportFilePath(config, orgId, documentId)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
