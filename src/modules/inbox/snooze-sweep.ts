import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { notifyLive } from './notify.js';

/**
 * A snoozed conversation comes back when its date passes (docs/inbox.md, "Snoozing"): a periodic job reopens
 * every conversation whose `snoozedUntil` is past, as a message of the contact does earlier, and announces it
 * (conversation.updated) to whom may see it. One statement across organizations, over a partial index that holds
 * the snoozed conversations only.
 */
export const snoozeSweepQueue: QueueDef = { name: 'inbox-snooze-sweep' };
export const SNOOZE_SWEEP_SECONDS = 60;

/** Reopens the conversations snoozed until `now` or before; answers how many. */
export async function reopenSnoozed(db: Database, now = new Date()) {
  const reopened = (
    await queryRows<{ organization_id: number; id: number; assignee_membership_id: number | null }>(
      db.system,
      sql`update conversations set status = 'open', snoozed_until = null, updated_at = now()
          where status = 'snoozed' and snoozed_until <= ${now}
            ${ownOrganizations(db, sql`organization_id`)}
          returning organization_id, id, assignee_membership_id`,
    )
  ).map((r) => ({
    orgId: Number(r.organization_id),
    id: Number(r.id),
    assignee: r.assignee_membership_id == null ? null : Number(r.assignee_membership_id),
  }));
  for (const orgId of new Set(reopened.map((c) => c.orgId)))
    await db.tenantTransaction(orgId, async (tx) => {
      for (const c of reopened.filter((x) => x.orgId === orgId))
        await notifyLive(tx, {
          orgId,
          type: 'conversation.updated',
          conversationId: c.id,
          assignee: c.assignee,
        });
    });
  return reopened.length;
}

export async function registerSnoozeSweep(deps: WorkerDeps) {
  await deps.jobs.every(snoozeSweepQueue, SNOOZE_SWEEP_SECONDS, async () => {
    await reopenSnoozed(deps.db);
  });
}
