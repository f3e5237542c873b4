import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import { notifyLive } from './notify.js';
import * as repo from './repo.js';

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
  const failed = (
    await queryRows<{ organization_id: number; id: number; conversation_id: number }>(
      db.system,
      sql`update chat_messages set status = 'failed', error = ${INTERRUPTED_ERROR}, updated_at = now()
          where status = 'queued' and direction = 'outgoing' and created_at < ${cutoff}
            ${ownOrganizations(db, sql`organization_id`)}
          returning organization_id, id, conversation_id`,
    )
  ).map((r) => ({
    orgId: Number(r.organization_id),
    id: Number(r.id),
    conversationId: Number(r.conversation_id),
  }));
  // Announced per organization, in its own transaction, to whom may see each conversation.
  for (const orgId of new Set(failed.map((m) => m.orgId)))
    await db.tenantTransaction(orgId, async (tx) => {
      const messages = failed.filter((m) => m.orgId === orgId);
      const conversations = await repo.conversationsByIds(tx, orgId, [
        ...new Set(messages.map((m) => m.conversationId)),
      ]);
      const assignee = new Map(conversations.map((c) => [c.id, c.assigneeMembershipId]));
      for (const m of messages)
        await notifyLive(tx, {
          orgId,
          type: 'conversation.updated',
          conversationId: m.conversationId,
          messageId: m.id,
          assignee: assignee.get(m.conversationId) ?? null,
        });
    });
  return failed.length;
}

export async function registerQueuedSweep(deps: WorkerDeps) {
  await deps.jobs.every(queuedSweepQueue, 60, async () => {
    await failInterruptedSends(deps.db);
  });
}
