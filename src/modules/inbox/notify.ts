import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../../platform/db/client.js';

/** The PostgreSQL notification channel of live inbox updates (live.ts listens to it in every API process). */
export const LIVE_CHANNEL = 'crm_inbox';

export interface LiveNotice {
  orgId: number;
  type: 'message.created' | 'conversation.updated';
  conversationId: number;
  messageId?: number;
  /** The conversation's assignee when the change committed: who may see it (docs/inbox.md, "Visibility"). */
  assignee: number | null;
}

/**
 * Announces a change to every API process. NOTIFY is transactional: delivered when the caller's transaction
 * commits, never for a rolled-back one; the payload carries ids only (readers load what they may see).
 */
export async function notifyLive(tx: Tx, notice: LiveNotice) {
  await tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(notice)})`);
}

/** Announces notices of many organizations (a sweep's changes), each organization's in its own transaction. */
export async function notifyEach(db: Database, notices: LiveNotice[]) {
  for (const orgId of new Set(notices.map((n) => n.orgId)))
    await db.tenantTransaction(orgId, async (tx) => {
      for (const n of notices) if (n.orgId === orgId) await notifyLive(tx, n);
    });
}
