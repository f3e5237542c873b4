import { eq } from 'drizzle-orm';
import { audit } from '../../platform/audit/audit.js';
import type { Principal } from '../../platform/auth/plugin.js';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import { enqueueMail } from '../../platform/mail/mailer.js';
import { toOrganization } from '../organizations/index.js';
import { organizations } from '../organizations/table.js';
import {
  asTenant,
  type OrganizationRow,
  ownedOrganization,
  ownerEmails,
  refuseWhileDeleting,
} from './owner.js';

/**
 * `POST /organizations/{id}/deletion`: schedules the deletion of the organization and all its data after
 * CRM_ORG_DELETION_GRACE_DAYS; the owners are told by e-mail. Audited.
 */
export async function scheduleDeletion(deps: AppDeps, principal: Principal, documentId: string) {
  return deps.db.system.transaction(async (tx) => {
    const org = await ownedOrganization(tx, principal, documentId);
    if (org.deletionScheduledAt)
      throw new AppError(
        'ConflictError',
        `The deletion is already scheduled for ${org.deletionScheduledAt.toISOString()}: DELETE /organizations/${documentId}/deletion cancels it`,
        { deletionScheduledAt: org.deletionScheduledAt.toISOString() },
      );
    const at = new Date(Date.now() + deps.config.CRM_ORG_DELETION_GRACE_DAYS * 86_400_000);
    const [row] = await tx
      .update(organizations)
      .set({ deletionScheduledAt: at, deletionRequestedBy: principal.userId, updatedAt: new Date() })
      .where(eq(organizations.id, org.id))
      .returning();
    await tell(deps, tx, row!, 'scheduled', principal);
    return toOrganization(row!, 'owner');
  });
}

/**
 * `DELETE /organizations/{id}/deletion`: cancels a scheduled deletion; the owners are told. Audited. Refused (409)
 * once the deletion job claimed the organization.
 */
export async function cancelDeletion(deps: AppDeps, principal: Principal, documentId: string) {
  return deps.db.system.transaction(async (tx) => {
    const org = await ownedOrganization(tx, principal, documentId);
    if (!org.deletionScheduledAt)
      throw new AppError('ConflictError', 'No deletion of this organization is scheduled', {});
    // The row is locked (ownedOrganization): the deletion's claim waits for this transaction, or came first.
    refuseWhileDeleting(org, 'its deletion started and can no longer be cancelled');
    const [row] = await tx
      .update(organizations)
      .set({ deletionScheduledAt: null, deletionRequestedBy: null, updatedAt: new Date() })
      .where(eq(organizations.id, org.id))
      .returning();
    await tell(deps, tx, { ...row!, deletionScheduledAt: org.deletionScheduledAt }, 'cancelled', principal);
    return toOrganization(row!, 'owner');
  });
}

/** The audit entry and the owners' e-mail (queued in the same transaction). */
async function tell(
  deps: AppDeps,
  tx: Parameters<Parameters<AppDeps['db']['system']['transaction']>[0]>[0],
  org: OrganizationRow,
  what: 'scheduled' | 'cancelled',
  principal: Principal,
) {
  const when = org.deletionScheduledAt!.toISOString();
  const to = await ownerEmails(tx, org.id);
  const t = await asTenant(tx, org.id);
  await audit(
    t,
    { orgId: org.id, userId: principal.userId },
    `organization.deletion_${what}`,
    org.documentId,
    {
      deletionScheduledAt: when,
    },
  );
  const text =
    what === 'scheduled'
      ? `The organization "${org.name}" (${org.slug}) and all its data (records, messages, files) will be deleted on ${when}.\n\nAn owner can cancel this until then: DELETE /api/organizations/${org.documentId}/deletion, or in the settings. An owner can also export the whole organization first (POST /api/organizations/${org.documentId}/export).`
      : `The deletion of the organization "${org.name}" (${org.slug}), scheduled for ${when}, was cancelled: nothing will be deleted.`;
  if (to.length)
    await enqueueMail(
      deps.jobs,
      {
        to,
        subject:
          what === 'scheduled'
            ? `${org.name}: deletion scheduled for ${when.slice(0, 10)}`
            : `${org.name}: deletion cancelled`,
        text,
      },
      { tx: t, orgId: org.id },
    );
}
