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
import { exportFilePath, exportTokenHash, newExportLink } from './links.js';
import { type PrivacyJobData, privacyRequestQueue } from './queues.js';
import * as repo from './repo.js';
import type { EraseInput, PrivacyRequest } from './schema.js';

/** A person's data exported or erased (docs/lgpd.md): the requests, their status, the export's download. */

/** The request as answered; `link` only in the answer that created an export (the one time it is shown). */
function toRequest(row: repo.PrivacyRequestRow, contactDocumentId: string, link?: string): PrivacyRequest {
  return {
    documentId: row.documentId,
    kind: row.kind,
    status: row.status,
    contact: { documentId: contactDocumentId },
    error: row.error,
    warnings: row.warnings,
    summary: row.summary,
    fileBytes: row.fileBytes,
    downloadUrl: link ?? null,
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
  const link = kind === 'data_export' ? newExportLink() : null;
  const row = await ctx.transaction(async (tx) => {
    const contactId = await contactIdByDocumentId(tx, ctx.orgId, contactDocumentId);
    if (!contactId) throw notFound('Contact');
    check?.();
    const created = await repo.insertRequest(tx, ctx.orgId, {
      kind,
      contactId,
      membershipId: ctx.membershipId,
      tokenHash: link?.tokenHash ?? null,
    });
    const data: PrivacyJobData = { orgId: ctx.orgId, requestId: created.id, userId: ctx.userId };
    await deps.jobs.send(privacyRequestQueue, data, { tx });
    await audit(tx, ctx, `contact.${kind}_requested`, contactDocumentId, { request: created.documentId });
    return created;
  });
  if (!ctx.dryRun) deps.jobs.nudge(privacyRequestQueue);
  return toRequest(row, contactDocumentId, link?.url);
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

export async function getRequest(ctx: TenantContext, documentId: string) {
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
  return toRequest(found.row, found.contact);
}

/**
 * The export's one download (the link's token is the credential): found by the token's hash, then refused while
 * the export is not done (409, the link not spent), once used, failed or expired (404, saying to request a new
 * export); else the request is marked downloaded (a second use finds it so), the file streamed and removed once
 * sent. A HEAD (a link preview, a mail scanner) checks without using the link up.
 */
export async function openExportDownload(db: Database, config: Config, token: string, peek = false) {
  const found = await repo.requestByTokenHash(db.system, exportTokenHash(token));
  if (!found) throw linkError('invalid');
  const { orgId, id } = found;
  const row = await db.tenantTransaction(orgId, async (tx) => {
    const request = await repo.requestById(tx, orgId, id);
    if (!request || request.downloadedAt) throw linkError('used');
    if (request.status === 'queued' || request.status === 'running')
      throw new AppError(
        'ConflictError',
        `The export is ${request.status}, not ready yet: try again in a moment`,
        {
          status: request.status,
        },
      );
    if (request.status === 'failed') throw linkError('failed');
    if (!request.expiresAt || request.expiresAt.getTime() <= Date.now()) throw linkError('expired');
    if (!peek && !(await repo.claimDownload(tx, orgId, id))) throw linkError('used');
    return request;
  });
  const path = exportFilePath(config, orgId, row.documentId);
  const info = await stat(path).catch(() => null);
  if (!info) throw linkError('used');
  const name = `data-export-${row.documentId}.zip`;
  if (peek) return { stream: null, size: info.size, name };
  const stream = createReadStream(path);
  stream.on('close', () => void unlink(path).catch(() => {}));
  return { stream, size: info.size, name };
}

const LINK_ERRORS = {
  invalid: 'This export link is not valid: use the downloadUrl the export request answered with',
  used: 'This export was already downloaded (a link works once) or its file is gone: request a new export',
  failed: 'This export failed (GET /privacy-requests/{id} says why): request a new export',
  expired:
    'This export link expired (links work for 15 minutes after the export is done): request a new export',
};

const linkError = (reason: keyof typeof LINK_ERRORS) => new AppError('NotFoundError', LINK_ERRORS[reason]);
