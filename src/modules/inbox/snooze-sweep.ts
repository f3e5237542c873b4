import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { notifyEach } from './notify.js';

/**
 * A snoozed conversation comes back when its date passes (docs/inbox.md, "Snoozing"): a periodic job reopens
 * every conversation whose `snoozedUntil` is past, as a message of the contact does earlier, and announces it
 * (conversation.updated) to whom may see it. One statement across organizations, over a partial index that holds
 * the snoozed conversations only.
 */
export const snoozeSweepQueue: QueueDef = { name: 'inbox-snooze-sweep' };

/**
 * Reopens the conversations snoozed until `now` or before; answers how many. The rows are taken with SKIP LOCKED:
 * one whose lock an inbound delivery or a person's change holds is left to them (a message reopens it anyway) or
 * to the next run, so the sweep never waits on, nor deadlocks with, the locks ingest takes in its own order.
 */
export async function reopenSnoozed(db: Database, now = new Date()) {
  const reopened = await queryRows<{
    organization_id: number;
    id: number;
    assignee_membership_id: number | null;
  }>(
    db.system,
    sql`update conversations set status = 'open', snoozed_until = null, updated_at = now()
        where (organization_id, id) in (
          select organization_id, id from conversations
          where status = 'snoozed' and snoozed_until <= ${now} ${ownOrganizations(db, sql`organization_id`)}
          for update skip locked)
        returning organization_id, id, assignee_membership_id`,
  );
  await notifyEach(
    db,
    reopened.map((r) => ({
      orgId: Number(r.organization_id),
      type: 'conversation.updated' as const,
      conversationId: Number(r.id),
      assignee: r.assignee_membership_id == null ? null : Number(r.assignee_membership_id),
    })),
  );
  return reopened.length;
}

export async function registerSnoozeSweep(deps: WorkerDeps) {
  await deps.jobs.every(snoozeSweepQueue, 60, async () => {
    await reopenSnoozed(deps.db);
  });
}
