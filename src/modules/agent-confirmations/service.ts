import type { Principal } from '../../platform/auth/plugin.js';
import { sha256 } from '../../platform/auth/tokens.js';
import { canonicalJson } from '../../platform/canonical-json.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import * as repo from './repo.js';
import type { Confirmation, ConfirmationInput } from './schema.js';

const DEFAULT_TTL_SECONDS = 900;
/** Once approved, the tool server has this long to make the call (the person may approve near the end). */
const AFTER_APPROVAL_MS = 10 * 60_000;

const argumentsHash = (tool: string, args: unknown) => sha256(`${tool}\n${canonicalJson(args)}`);

function statusOf(r: repo.ConfirmationRow, now = Date.now()): Confirmation['status'] {
  if ((r.status === 'pending' || r.status === 'approved') && r.expiresAt.getTime() <= now) return 'expired';
  return r.status;
}

function toConfirmation(ctx: TenantContext, r: repo.ConfirmationRow): Confirmation {
  return {
    documentId: r.documentId,
    tool: r.tool,
    summary: r.summary,
    arguments: r.arguments,
    preview: r.preview ?? null,
    status: statusOf(r),
    url: `/app/confirm/${r.documentId}?org=${encodeURIComponent(ctx.orgSlug)}`,
    expiresAt: isoRequired(r.expiresAt),
    decidedAt: iso(r.decidedAt),
    usedAt: iso(r.usedAt),
    createdAt: isoRequired(r.createdAt),
  };
}

/** An agent acting for the caller asks the caller to approve one call. */
export async function requestConfirmation(ctx: TenantContext, input: ConfirmationInput) {
  const expiresAt = new Date(Date.now() + (input.expiresInSeconds ?? DEFAULT_TTL_SECONDS) * 1000);
  return ctx.transaction(async (tx) => {
    const row = await repo.insertConfirmation(tx, ctx.orgId, {
      membershipId: ctx.membershipId,
      tool: input.tool,
      summary: input.summary,
      arguments: input.arguments,
      argumentsHash: argumentsHash(input.tool, input.arguments),
      preview: input.preview ?? null,
      expiresAt,
    });
    return toConfirmation(ctx, row);
  });
}

export async function getConfirmation(ctx: TenantContext, documentId: string) {
  const row = await ctx.transaction((tx) => repo.findOwn(tx, ctx.orgId, ctx.membershipId, documentId));
  if (!row) throw notFound('Confirmation');
  return toConfirmation(ctx, row);
}

/**
 * The person decides. Only a person signed in (a session) may: an API token is what the agent holds, and an
 * agent approving its own call is what confirmation exists to prevent.
 */
export async function decideConfirmation(
  ctx: TenantContext,
  via: Principal['via'],
  documentId: string,
  decision: 'approved' | 'declined',
) {
  if (via !== 'session')
    throw new AppError(
      'ForbiddenError',
      'Only the person signed in to the web application can approve or decline an agent’s change; API tokens and OAuth access tokens cannot',
      { requires: 'session' },
    );
  return ctx.transaction(async (tx) => {
    const row = await repo.findOwn(tx, ctx.orgId, ctx.membershipId, documentId, true);
    if (!row) throw notFound('Confirmation');
    const status = statusOf(row);
    if (status === decision) return toConfirmation(ctx, row); // a repeated click changes nothing
    if (status !== 'pending')
      throw new AppError(
        'ConflictError',
        `This confirmation is already ${status}; it cannot be ${decision}`,
        {
          status,
        },
      );
    const now = new Date();
    const updated = await repo.setStatus(tx, row, {
      status: decision,
      decidedAt: now,
      ...(decision === 'approved'
        ? { expiresAt: new Date(Math.max(row.expiresAt.getTime(), now.getTime() + AFTER_APPROVAL_MS)) }
        : {}),
    });
    return toConfirmation(ctx, updated);
  });
}

/** The tool server spends an approval, once, for exactly the call that was approved. */
export async function redeemConfirmation(
  ctx: TenantContext,
  documentId: string,
  call: { tool: string; arguments: Record<string, unknown> },
) {
  return ctx.transaction(async (tx) => {
    const row = await repo.findOwn(tx, ctx.orgId, ctx.membershipId, documentId, true);
    if (!row) throw notFound('Confirmation');
    if (row.tool !== call.tool || row.argumentsHash !== argumentsHash(call.tool, call.arguments))
      return { redeemed: false, reason: 'mismatch' as const, data: toConfirmation(ctx, row) };
    const status = statusOf(row);
    if (status !== 'approved') return { redeemed: false, reason: status, data: toConfirmation(ctx, row) };
    const updated = await repo.setStatus(tx, row, { status: 'used', usedAt: new Date() });
    return { redeemed: true, data: toConfirmation(ctx, updated) };
  });
}
