import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import { type Database, queryRows } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { iso } from '../../platform/http/schemas.js';
import type { Jobs } from '../../platform/jobs/jobs.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { contactIdByDocumentId } from '../contacts/index.js';
import { exportFilePath, signExportLink, verifyExportToken } from './links.js';
import { type PrivacyJobData, privacyRequestQueue } from './queues.js';
import * as repo from './repo.js';
import type { EraseInput, PrivacyRequest } from './schema.js';

/** A person's data exported or erased (docs/lgpd.md): the requests, their status, the export's download. */

async function toRequest(
  db: Database,
  row: repo.PrivacyRequestRow,
  contactDocumentId: string,
): Promise<PrivacyRequest> {
  const downloadable =
    row.kind === 'data_export' &&
    row.status === 'done' &&
    !row.downloadedAt &&
    row.expiresAt &&
    row.expiresAt.getTime() > Date.now();
  return {
    documentId: row.documentId,
    kind: row.kind,
    status: row.status,
    contact: { documentId: contactDocumentId },
    error: row.error,
    warnings: row.warnings,
    summary: row.summary,
    fileBytes: row.fileBytes,
    downloadUrl: downloadable
      ? await signExportLink(db, row.organizationId, row.documentId, row.expiresAt!)
      : null,
    expiresAt: iso(row.expiresAt),
    downloadedAt: iso(row.downloadedAt),
    createdAt: iso(row.createdAt)!,
    finishedAt: iso(row.finishedAt),
  };
}

async function startRequest(
  ctx: TenantContext,
  deps: { db: Database; jobs: Jobs },
  kind: repo.PrivacyRequestKind,
  contactDocumentId: string,
  check?: () => void,
) {
  requireRole(ctx, 'admin');
  const row = await ctx.transaction(async (tx) => {
    const contactId = await contactIdByDocumentId(tx, ctx.orgId, contactDocumentId);
    if (!contactId) throw notFound('Contact');
    check?.();
    const created = await repo.insertRequest(tx, ctx.orgId, {
      kind,
      contactId,
      membershipId: ctx.membershipId,
    });
    const data: PrivacyJobData = { orgId: ctx.orgId, requestId: created.id, userId: ctx.userId };
    await deps.jobs.send(privacyRequestQueue, data, { tx });
    await audit(tx, ctx, `contact.${kind}_requested`, contactDocumentId, { request: created.documentId });
    return created;
  });
  if (!ctx.dryRun) deps.jobs.nudge(privacyRequestQueue);
  return toRequest(deps.db, row, contactDocumentId);
}

export const requestDataExport = (
  ctx: TenantContext,
  deps: { db: Database; jobs: Jobs },
  contactId: string,
) => startRequest(ctx, deps, 'data_export', contactId);

export const requestErasure = (
  ctx: TenantContext,
  deps: { db: Database; jobs: Jobs },
  contactId: string,
  input: EraseInput,
) =>
  startRequest(ctx, deps, 'erasure', contactId, () => {
    if (input.confirm !== contactId)
      throw new AppError(
        'ValidationError',
        "confirm must repeat the contact's documentId (the one in the path)",
        {
          errors: [{ path: ['confirm'], message: 'must equal the documentId of the contact being erased' }],
        },
      );
  });

export async function getRequest(ctx: TenantContext, db: Database, documentId: string) {
  requireRole(ctx, 'admin');
  const found = await ctx.transaction(async (tx) => {
    const row = await repo.findRequest(tx, ctx.orgId, documentId);
    if (!row) return null;
    const [c] = await queryRows<{ document_id: string }>(
      tx,
      sql`select document_id from contacts where organization_id = ${ctx.orgId} and id = ${row.contactId}`,
    );
    return { row, contact: c?.document_id ?? '' };
  });
  if (!found) throw notFound('Privacy request');
  return toRequest(db, found.row, found.contact);
}

/**
 * The export's one download: the link's signature and expiry checked, the request marked downloaded (a second
 * use finds it so), the file streamed and removed once sent. Every refusal is a 404 saying what to do.
 */
export async function openExportDownload(db: Database, config: Config, token: string, peek = false) {
  const link = await verifyExportToken(db, token);
  if (!link.ok) throw linkError(link.reason);
  const { orgId, documentId } = link;
  const path = exportFilePath(config, orgId, documentId);
  // A HEAD (a link preview, a mail scanner) looks without using the link up.
  const claimed = await db.tenantTransaction(orgId, async (tx) => {
    const row = await repo.findRequest(tx, orgId, documentId);
    if (peek) return row?.status === 'done' && !row.downloadedAt;
    return !!row && (await repo.claimDownload(tx, orgId, row.id));
  });
  const info = claimed ? await stat(path).catch(() => null) : null;
  if (!info)
    throw new AppError(
      'NotFoundError',
      'This export was already downloaded (a link works once) or its file is gone: request a new export',
    );
  if (peek) return { stream: null, size: info.size, name: `data-export-${documentId}.zip` };
  const stream = createReadStream(path);
  stream.on('close', () => void unlink(path).catch(() => {}));
  return { stream, size: info.size, name: `data-export-${documentId}.zip` };
}

const linkError = (reason: 'invalid' | 'expired') =>
  new AppError(
    'NotFoundError',
    reason === 'expired'
      ? 'This export link expired (links work for 15 minutes after the export is done): request a new export'
      : 'This export link is not valid: use the downloadUrl of the export status',
  );
