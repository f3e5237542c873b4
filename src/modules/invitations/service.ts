import { publicBaseUrl } from '../../config.js';
import { audit } from '../../platform/audit/audit.js';
import type { Principal } from '../../platform/auth/plugin.js';
import { randomToken, sha256 } from '../../platform/auth/tokens.js';
import type { Tx } from '../../platform/db/client.js';
import type { AppDeps } from '../../platform/deps.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { compileListQuery, type ListQueryInput, listPage } from '../../platform/http/list-query.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { enqueueMail, oneLine } from '../../platform/mail/mailer.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { userRefOf } from '../../platform/tenancy/memberships.js';
import {
  ensureMembership,
  findMembershipByUser,
  findOrganizationById,
  toMembership,
} from '../organizations/index.js';
import * as repo from './repo.js';
import type { Invitation, InvitationInput, InvitationPreview } from './schema.js';

/** How long a link stays valid; inviting the address again renews it. */
export const INVITATION_DAYS = 7;
/** The link's secret: 32 random bytes, stored only as SHA-256 (like API tokens). */
export const INVITATION_TOKEN_PREFIX = 'crm_inv_';

function statusOf(row: repo.InvitationRow): Invitation['status'] {
  return row.status === 'pending' && row.expiresAt.getTime() <= Date.now() ? 'expired' : row.status;
}

export function toInvitation(row: repo.InvitationRow): Invitation {
  return {
    documentId: row.documentId,
    email: row.email,
    role: row.role,
    status: statusOf(row),
    expiresAt: isoRequired(row.expiresAt),
    invitedBy: row.inviterDocumentId
      ? {
          documentId: row.inviterDocumentId,
          user: userRefOf({
            username: row.inviterUsername!,
            email: row.inviterEmail!,
            blocked: row.inviterBlocked!,
            name: row.inviterName,
          }),
        }
      : null,
    createdAt: isoRequired(row.createdAt),
    updatedAt: isoRequired(row.updatedAt),
  };
}

/**
 * `POST /memberships`: invites an address. It never looks the address up (no account, an account, already a
 * member: same work, same answer), so the caller learns nothing about who is registered. The e-mail with the
 * link is queued in the same transaction as the invitation.
 */
export async function inviteMember(deps: AppDeps, ctx: TenantContext, input: InvitationInput) {
  requireRole(ctx, 'admin');
  if (input.role === 'owner') requireRole(ctx, 'owner');
  const token = randomToken(INVITATION_TOKEN_PREFIX);
  const expiresAt = new Date(Date.now() + INVITATION_DAYS * 86_400_000);
  const seal = await secretBox(deps.config, deps.db);
  return ctx.transaction(async (tx) => {
    const row = await repo.upsertPendingInvitation(tx, ctx.orgId, {
      email: input.email,
      role: input.role,
      tokenHash: sha256(token),
      expiresAt,
      invitedByMembershipId: ctx.membershipId || null,
    });
    const org = (await findOrganizationById(tx, ctx.orgId))!;
    // The link is the invitation's secret: its body is sealed in the queue (only the hash is stored in clear).
    await enqueueMail(deps.jobs, invitationMail(deps, org.name, row, token), {
      tx,
      orgId: ctx.orgId,
      seal,
    });
    await audit(tx, ctx, 'invitation.sent', row.documentId, { email: row.email, role: row.role });
    return toInvitation(row);
  });
}

function invitationMail(deps: AppDeps, orgName: string, row: repo.InvitationRow, token: string) {
  const link = `${publicBaseUrl(deps.config)}/api/invitations/${token}`;
  const inviter = row.inviterUsername ? `${row.inviterUsername} invited you` : 'You are invited';
  return {
    to: row.email,
    subject: oneLine(`Invitation to join ${orgName}`),
    text:
      `Hello,\n\n${inviter} to join "${orgName}" as ${row.role}.\n\n` +
      `The invitation: ${link}\n\n` +
      `To accept, sign in with the account of this address (${row.email}), or register one with it, and send\n` +
      `POST ${link}/accept (to decline: ${link}/decline).\n\n` +
      `The link expires ${row.expiresAt.toISOString()} and works once. If you did not expect this message,\n` +
      'ignore it: nothing happens unless you accept.\n',
  };
}

export async function listInvitations(ctx: TenantContext, query: ListQueryInput) {
  requireRole(ctx, 'admin');
  const q = compileListQuery(repo.invitationModel, query, 'createdAt:desc');
  const { rows, total } = await ctx.transaction((tx) => repo.listPendingInvitations(tx, ctx.orgId, q));
  return listPage(rows.map(toInvitation), total, q);
}

export async function revokeInvitation(ctx: TenantContext, documentId: string) {
  requireRole(ctx, 'admin');
  return ctx.transaction(async (tx) => {
    if (!(await repo.deletePendingInvitation(tx, ctx.orgId, documentId))) throw notFound('Invitation');
    await audit(tx, ctx, 'invitation.revoked', documentId);
    return { documentId, deleted: true as const };
  });
}

/**
 * Runs `fn` on the invitation of a link's token in its organization's transaction. The organization is found
 * by the token alone (outside RLS); unknown, revoked and foreign tokens are all the same 404.
 */
async function withInvitation<T>(
  { db }: AppDeps,
  token: string,
  lock: boolean,
  fn: (tx: Tx, orgId: number, row: repo.InvitationRow) => Promise<T>,
): Promise<T> {
  const tokenHash = sha256(token);
  const orgId = await repo.findInvitationOrganization(db.system, tokenHash);
  if (orgId === undefined) throw notFound('Invitation');
  return db.tenantTransaction(orgId, async (tx) => {
    const row = await repo.findInvitationByToken(tx, orgId, tokenHash, lock);
    if (!row) throw notFound('Invitation');
    return fn(tx, orgId, row);
  });
}

async function organizationRef(tx: Tx, orgId: number) {
  const org = (await findOrganizationById(tx, orgId))!;
  return { documentId: org.documentId, name: org.name, slug: org.slug };
}

async function toPreview(tx: Tx, orgId: number, row: repo.InvitationRow): Promise<InvitationPreview> {
  return {
    organization: await organizationRef(tx, orgId),
    email: row.email,
    role: row.role,
    status: statusOf(row),
    expiresAt: isoRequired(row.expiresAt),
    invitedBy: row.inviterUsername ? { username: row.inviterUsername } : null,
  };
}

/** `GET /invitations/{token}`: what the link's holder is invited to, before signing in. */
export function previewInvitation(deps: AppDeps, token: string) {
  return withInvitation(deps, token, false, (tx, orgId, row) => toPreview(tx, orgId, row));
}

/** The signed-in account must be the invited address: holding the link is not enough. */
function requireInvitee(principal: Principal, row: repo.InvitationRow) {
  if (principal.email.toLowerCase() !== row.email) {
    throw new AppError('ForbiddenError', 'This invitation is addressed to another account');
  }
}

/**
 * `POST /invitations/{token}/accept`: the invitee's consent. Creates the membership with the invited role (an
 * existing membership is kept as it is) and uses the link up. Accepting again answers the same membership while
 * it exists; a used link never re-creates a membership that was removed since.
 */
export async function acceptInvitation(deps: AppDeps, principal: Principal, token: string) {
  return withInvitation(deps, token, true, async (tx, orgId, row) => {
    requireInvitee(principal, row);
    const organization = await organizationRef(tx, orgId);
    if (row.status === 'accepted') {
      const existing = await findMembershipByUser(tx, orgId, principal.userId);
      if (!existing) throw new AppError('UnprocessableEntityError', 'This invitation has already been used');
      return { organization, membership: toMembership(existing) };
    }
    if (row.status === 'declined')
      throw new AppError('UnprocessableEntityError', 'This invitation was declined');
    if (statusOf(row) === 'expired') {
      throw new AppError('UnprocessableEntityError', 'This invitation has expired: ask for a new one');
    }
    const { membership, created } = await ensureMembership(tx, orgId, principal.userId, row.role);
    await repo.markResponded(tx, orgId, row.id, 'accepted');
    const actor = { orgId, userId: principal.userId };
    await audit(tx, actor, 'invitation.accepted', row.documentId, {
      membership: membership.documentId,
      created,
    });
    if (created) await audit(tx, actor, 'membership.created', membership.documentId, { role: row.role });
    return { organization, membership: toMembership(membership) };
  });
}

/** `POST /invitations/{token}/decline`: the invitee says no; the link is used up (idempotent). */
export function declineInvitation(deps: AppDeps, principal: Principal, token: string) {
  return withInvitation(deps, token, true, async (tx, orgId, row) => {
    requireInvitee(principal, row);
    if (row.status === 'accepted')
      throw new AppError('UnprocessableEntityError', 'This invitation was accepted');
    if (row.status === 'pending') {
      await repo.markResponded(tx, orgId, row.id, 'declined');
      await audit(tx, { orgId, userId: principal.userId }, 'invitation.declined', row.documentId);
    }
    return toPreview(tx, orgId, { ...row, status: 'declined' });
  });
}
