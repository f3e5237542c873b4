import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { notifyEach } from './notify.js';

/**
 * Sends a crash interrupted (docs/inbox.md, "Sending"): a message's ledger row is committed `queued` before the
 * provider is called and settled after its answer, so a process that died in between leaves it `queued` for good.
 * Once it is older than any send can take (the longest pace wait and the provider's timeout, far under
 * QUEUED_LIMIT_SECONDS), it is failed as "outcome unknown, not resent": the provider may have taken it, so it is
 * never sent again, and the agent sees it failed instead of pending forever.
 */
export const QUEUED_LIMIT_SECONDS = 15 * 60;
export const INTERRUPTED_ERROR = 'interrupted while sending: outcome unknown, not resent';

export const queuedSweepQueue: QueueDef = { name: 'inbox-queued-sweep' };

/** Fails the outgoing messages still queued `QUEUED_LIMIT_SECONDS` before `now`; answers how many. */
export async function failInterruptedSends(db: Database, now = new Date()) {
  const cutoff = new Date(now.getTime() - QUEUED_LIMIT_SECONDS * 1000);
  // With each conversation's assignee: the notice goes to whom may see it.
  const failed = await queryRows<{
    organization_id: number;
    id: number;
    conversation_id: number;
    assignee_membership_id: number | null;
  }>(
    db.system,
    sql`update chat_messages m set status = 'failed', error = ${INTERRUPTED_ERROR}, updated_at = now()
        from conversations c
        where m.status = 'queued' and m.direction = 'outgoing' and m.created_at < ${cutoff}
          ${ownOrganizations(db, sql`m.organization_id`)}
          and c.organization_id = m.organization_id and c.id = m.conversation_id
        returning m.organization_id, m.id, m.conversation_id, c.assignee_membership_id`,
  );
  await notifyEach(
    db,
    failed.map((r) => ({
      orgId: Number(r.organization_id),
      type: 'conversation.updated' as const,
      conversationId: Number(r.conversation_id),
      messageId: Number(r.id),
      assignee: r.assignee_membership_id == null ? null : Number(r.assignee_membership_id),
    })),
  );
  return failed.length;
}

export async function registerQueuedSweep(deps: WorkerDeps) {
  await deps.jobs.every(queuedSweepQueue, 60, async () => {
    await failInterruptedSends(deps.db);
  });
}
