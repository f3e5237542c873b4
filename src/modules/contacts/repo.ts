import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { contacts } from './table.js';

export { contactModel } from './query-model.js';

export interface ContactRef {
  documentId: string;
  name: string;
  email: string | null;
  phone: string | null;
}

/** ContactRefs for a set of internal contact ids (cards, timeline, conversations show them). */
export async function contactRefsByIds(
  tx: Tx,
  orgId: number,
  ids: number[],
): Promise<Map<number, ContactRef>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await tx
    .select({
      id: contacts.id,
      documentId: contacts.documentId,
      name: contacts.name,
      email: contacts.email,
      phone: contacts.phone,
    })
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), inArray(contacts.id, unique)));
  return new Map(rows.map(({ id, ...ref }) => [id, ref]));
}

/** Internal id of a contact named by documentId, or undefined when absent in this organization. */
export async function contactIdByDocumentId(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), eq(contacts.documentId, documentId)));
  return row?.id;
}
