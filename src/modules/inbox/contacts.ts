import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { contacts } from '../contacts/table.js';
import * as repo from './repo.js';
import { requireInbox } from './service.js';

export async function findContactById(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), eq(contacts.id, id)));
  return row;
}

/** GET /chat-contacts: contacts reachable on WhatsApp (with a phone), with their conversations. */
export async function searchChatContacts(ctx: TenantContext, q: string | undefined, limit = 20) {
  requireInbox(ctx);
  return ctx.transaction(async (tx) => ({ data: await repo.chatContacts(tx, ctx.orgId, q, limit) }));
}
