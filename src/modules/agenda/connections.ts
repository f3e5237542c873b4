import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { AppError, isUniqueViolation, notFound, validationError } from '../../platform/http/errors.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { type SafeFetch, sharedSafeFetch } from '../../platform/outbound/safe-fetch.js';
import { CalDavError, type CalDavTarget, discoverCalendar } from '../../platform/providers/caldav/client.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { requireFeature, requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { membershipRefsByIds } from '../../platform/tenancy/memberships.js';
import * as repo from './repo.js';
import type { Connection, ConnectionInput } from './schema.js';

export type Deps = Pick<AppDeps, 'config' | 'db' | 'jobs'>;

/** The SSRF-safe fetch of this configuration (allow-list from CRM_OUTBOUND_ALLOWLIST), shared in the process. */
export const outboundFetch = (deps: Pick<AppDeps, 'config'>): SafeFetch =>
  sharedSafeFetch(deps.config.CRM_OUTBOUND_ALLOWLIST);

/** Binds a sealed password to its row: a ciphertext moved to another connection does not open. */
const sealContext = (orgId: number, membershipId: number) => `calendar_connection:${orgId}:${membershipId}`;

/**
 * A CalDAV failure as the API reports it: a refused address or refused credentials are the request's to fix
 * (400 / 422); anything else is the calendar server's (502 BadGatewayError, details.provider).
 */
export function calDavFailure(err: unknown): AppError {
  if (!(err instanceof CalDavError)) throw err;
  if (err.blocked)
    return validationError(
      `The calendar URL is refused: ${err.message}. Use the server's public address (operators can allow a host with CRM_OUTBOUND_ALLOWLIST).`,
      [{ path: ['url'], message: err.message }],
    );
  if (err.status === 401 || err.status === 403)
    return new AppError(
      'UnprocessableEntityError',
      `${err.message}: check the username and password (an app password for iCloud, Fastmail, Google)`,
      { provider: 'caldav', providerStatus: err.status },
    );
  return new AppError('BadGatewayError', `The calendar server failed: ${err.message}`, {
    provider: 'caldav',
    providerStatus: err.status ?? null,
    message: err.message,
  });
}

async function present(tx: Tx, orgId: number, row: repo.ConnectionRow): Promise<Connection> {
  const refs = await membershipRefsByIds(tx, orgId, [row.membershipId]);
  const membership = refs.get(row.membershipId);
  if (!membership) throw notFound('Calendar connection');
  return {
    documentId: row.documentId,
    provider: 'caldav',
    url: row.url,
    username: row.username,
    calendarUrl: row.calendarUrl,
    displayName: row.displayName,
    hasPassword: true,
    membership,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

/** The caller's own connection (0 or 1): nobody lists another person's calendar, admins included. */
export async function listConnections(ctx: TenantContext) {
  requireFeature(ctx, 'agenda');
  return ctx.transaction(async (tx) => {
    const row = await repo.findConnectionOf(tx, ctx.orgId, ctx.membershipId);
    return { data: row ? [await present(tx, ctx.orgId, row)] : [] };
  });
}

const alreadyConnected = () =>
  new AppError(
    'ConflictError',
    'You already have a connected calendar (one per user): DELETE /calendar-connections/{id} first to replace it',
  );

export async function createConnection(deps: Deps, ctx: TenantContext, input: ConnectionInput) {
  requireFeature(ctx, 'agenda');
  requireRole(ctx, 'viewer');
  if (await ctx.transaction((tx) => repo.findConnectionOf(tx, ctx.orgId, ctx.membershipId)))
    throw alreadyConnected();
  // Discovery before saving: only a URL and credentials that reach a calendar are stored.
  const found = await discoverCalendar(outboundFetch(deps), input).catch((err) => {
    throw calDavFailure(err);
  });
  const box = await secretBox(deps.config, deps.db);
  return ctx.transaction(async (tx) => {
    if (await repo.findConnectionOf(tx, ctx.orgId, ctx.membershipId)) throw alreadyConnected();
    const row = await repo
      .insertConnection(tx, ctx.orgId, {
        documentId: newDocumentId(),
        membershipId: ctx.membershipId,
        provider: 'caldav',
        url: input.url,
        username: input.username,
        passwordSealed: box.encrypt(input.password, sealContext(ctx.orgId, ctx.membershipId)),
        calendarUrl: found.calendarUrl,
        displayName: found.displayName,
      })
      .catch((err) => {
        if (isUniqueViolation(err)) throw alreadyConnected();
        throw err;
      });
    await audit(tx, ctx, 'calendar_connection.created', row.documentId, { url: row.url });
    return present(tx, ctx.orgId, row);
  });
}

export async function deleteConnection(ctx: TenantContext, documentId: string) {
  requireFeature(ctx, 'agenda');
  return ctx.transaction(async (tx) => {
    const row = await repo.findConnectionOf(tx, ctx.orgId, ctx.membershipId);
    if (!row || row.documentId !== documentId) throw notFound('Calendar connection');
    await repo.deleteConnection(tx, ctx.orgId, row.id);
    await audit(tx, ctx, 'calendar_connection.deleted', row.documentId, {});
    return { documentId: row.documentId, deleted: true as const };
  });
}

/** The caller's calendar as a CalDAV target (password opened), or undefined when none is connected. */
export async function targetOf(deps: Deps, row: repo.ConnectionRow): Promise<CalDavTarget> {
  const box = await secretBox(deps.config, deps.db);
  return {
    url: row.url,
    username: row.username,
    password: box.decrypt(row.passwordSealed, sealContext(row.organizationId, row.membershipId)),
    calendarUrl: row.calendarUrl,
  };
}

export const noCalendar = () =>
  new AppError(
    'UnprocessableEntityError',
    'You have no connected calendar: connect one with POST /calendar-connections (CalDAV URL, username, app password) first',
    { requires: 'calendar_connection' },
  );
