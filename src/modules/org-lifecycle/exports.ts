import { timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import type { Principal } from '../../platform/auth/plugin.js';
import { randomToken, sha256 } from '../../platform/auth/tokens.js';
import { writeFileAtomically } from '../../platform/backup/backup.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { jobReads } from '../../platform/db/job-reads.js';
import type { AppDeps, WorkerDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { organizations } from '../organizations/table.js';
import { writeOrganizationArchive } from './export-writer.js';
import { orgFilesDir } from './files.js';
import { asTenant, ownedOrganization, refuseWhileDeleting } from './owner.js';
import { organizationExports } from './table.js';

export const orgExportQueue: QueueDef = {
  name: 'organization-export',
  retryLimit: 2,
  expireInSeconds: 6 * 3600,
};

type ExportRow = typeof organizationExports.$inferSelect;

export const exportFile = (config: Pick<Config, 'CRM_DATA_DIR'>, orgId: number, documentId: string) =>
  join(orgFilesDir(config, 'exports', orgId), `${documentId}.tar.gz`);

/** The one-time link's token (docs/decisions.md, "One kind of one-time link"): shown once, stored as its SHA-256. */
export const ORG_EXPORT_TOKEN_PREFIX = 'crm_ox_';

export function toExport(row: ExportRow, orgDocumentId: string, token?: string) {
  return {
    documentId: row.documentId,
    status: row.status as 'queued' | 'running' | 'done' | 'failed',
    bytes: row.bytes,
    rows: row.rows,
    files: row.files,
    error: row.error,
    expiresAt: row.expiresAt.toISOString(),
    downloadedAt: row.downloadedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    ...(token && {
      downloadUrl: `/api/organizations/${orgDocumentId}/exports/${row.documentId}/file?token=${token}`,
    }),
  };
}

/** `POST /organizations/{id}/export` (owner): the export row and its job, one transaction; the link shown once. */
export async function requestExport(deps: AppDeps, principal: Principal, documentId: string) {
  const token = randomToken(ORG_EXPORT_TOKEN_PREFIX);
  return deps.db.system.transaction(async (tx) => {
    const org = await ownedOrganization(tx, principal, documentId);
    refuseWhileDeleting(org, 'its data is going, there is nothing whole left to export');
    const t = await asTenant(tx, org.id);
    const [row] = await t
      .insert(organizationExports)
      .values({
        organizationId: org.id,
        documentId: newDocumentId(),
        requestedBy: principal.userId,
        tokenHash: sha256(token),
        expiresAt: new Date(Date.now() + deps.config.CRM_ORG_EXPORT_TTL_HOURS * 3_600_000),
      })
      .returning();
    await audit(t, { orgId: org.id, userId: principal.userId }, 'organization.exported', row!.documentId);
    await deps.jobs.send(orgExportQueue, { orgId: org.id, exportId: row!.id }, { tx: t });
    return toExport(row!, org.documentId, token);
  });
}

/** `GET /organizations/{id}/exports/{exportId}` (owner): the export's state. */
export async function getExport(deps: AppDeps, principal: Principal, documentId: string, exportId: string) {
  return deps.db.system.transaction(async (tx) => {
    const org = await ownedOrganization(tx, principal, documentId);
    const t = await asTenant(tx, org.id);
    const [row] = await t
      .select()
      .from(organizationExports)
      .where(
        and(eq(organizationExports.organizationId, org.id), eq(organizationExports.documentId, exportId)),
      );
    if (!row) throw new AppError('NotFoundError', 'Export not found', {});
    return toExport(row, org.documentId);
  });
}

const linkGone = () =>
  new AppError(
    'NotFoundError',
    'This download link is unknown, expired or already used: ask for a new export (POST /organizations/{id}/export)',
    {},
  );

/**
 * The download (public: the token is the credential): once, before it expires, when the file is ready. The row
 * is marked downloaded before the file is sent; the file is removed once sent.
 */
export async function openDownload(
  db: Database,
  config: Config,
  orgDocumentId: string,
  exportId: string,
  token: string,
) {
  const [org] = await db.system
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.documentId, orgDocumentId));
  if (!org) throw linkGone();
  const row = await db.tenantTransaction(org.id, async (tx) => {
    const [found] = await tx
      .select()
      .from(organizationExports)
      .where(
        and(eq(organizationExports.organizationId, org.id), eq(organizationExports.documentId, exportId)),
      );
    if (
      !found ||
      !sameHash(found.tokenHash, sha256(token)) ||
      found.downloadedAt ||
      found.expiresAt < new Date()
    )
      throw linkGone();
    if (found.status !== 'done')
      throw new AppError('ConflictError', `The export is ${found.status}, not ready yet: try again later`, {
        status: found.status,
      });
    // Once: of two downloads at the same moment, the second finds the row already claimed.
    const claimed = await tx
      .update(organizationExports)
      .set({ downloadedAt: new Date(), updatedAt: new Date() })
      .where(
        and(
          eq(organizationExports.organizationId, org.id),
          eq(organizationExports.id, found.id),
          isNull(organizationExports.downloadedAt),
        ),
      )
      .returning({ id: organizationExports.id });
    if (claimed.length !== 1) throw linkGone();
    return found;
  });
  const path = exportFile(config, org.id, row.documentId);
  const size = (await stat(path).catch(() => undefined))?.size;
  if (size === undefined) throw linkGone();
  const stream = createReadStream(path);
  stream.once('close', () => void unlink(path).catch(() => {}));
  return { stream, size, name: `organization-${orgDocumentId}-${row.documentId}.tar.gz` };
}

function sameHash(a: string, b: string) {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The job: writes the file, then records its size and counts (or the failure). */
export async function runExport(
  { db, config }: Pick<WorkerDeps, 'db' | 'config'>,
  orgId: number,
  exportId: number,
) {
  const where = and(eq(organizationExports.organizationId, orgId), eq(organizationExports.id, exportId));
  const set = (values: Partial<ExportRow>) =>
    db.tenantTransaction(orgId, (tx) =>
      tx
        .update(organizationExports)
        .set({ ...values, updatedAt: new Date() })
        .where(where)
        .returning(),
    );
  const [row] = await set({ status: 'running' });
  if (!row) return;
  const path = exportFile(config, orgId, row.documentId);
  try {
    // The tables' pages from the replica once it has replayed what was committed before this job began.
    const reads = await jobReads(db);
    const manifest = await writeFileAtomically(path, (out) =>
      writeOrganizationArchive(reads, config, orgId, out),
    );
    await set({
      status: 'done',
      bytes: (await stat(path)).size,
      rows: Object.values(manifest.rows).reduce((a, b) => a + b, 0),
      files: manifest.files.length,
      finishedAt: new Date(),
    });
  } catch (err) {
    await set({ status: 'failed', error: (err as Error).message.slice(0, 500), finishedAt: new Date() });
    throw err;
  }
}

/** Export files past their link (expired or downloaded) are removed; answers how many. */
export async function removeSpentExports(db: Database, config: Pick<Config, 'CRM_DATA_DIR'>) {
  const spent = await queryRows<{ organizationId: number; documentId: string }>(
    db.system,
    sql`select organization_id as "organizationId", document_id as "documentId" from organization_exports
        where ${or(lt(organizationExports.expiresAt, new Date()), sql`downloaded_at is not null`)}`,
  );
  for (const e of spent) await unlink(exportFile(config, e.organizationId, e.documentId)).catch(() => {});
  return spent.length;
}
