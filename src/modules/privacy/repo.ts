import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type PRIVACY_REQUEST_KINDS, privacyRequests } from './table.js';

export type PrivacyRequestRow = typeof privacyRequests.$inferSelect;
export type PrivacyRequestKind = (typeof PRIVACY_REQUEST_KINDS)[number];

const byId = (orgId: number, id: number) =>
  and(eq(privacyRequests.organizationId, orgId), eq(privacyRequests.id, id));

export async function insertRequest(
  tx: Tx,
  orgId: number,
  values: { kind: PrivacyRequestKind; contactId: number; membershipId: number },
) {
  const [row] = await tx
    .insert(privacyRequests)
    .values({
      organizationId: orgId,
      documentId: newDocumentId(),
      kind: values.kind,
      contactId: values.contactId,
      requestedByMembershipId: values.membershipId,
    })
    .returning();
  return row;
}

export async function findRequest(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(privacyRequests)
    .where(and(eq(privacyRequests.organizationId, orgId), eq(privacyRequests.documentId, documentId)));
  return row as PrivacyRequestRow | undefined;
}

export async function requestById(tx: Tx, orgId: number, id: number, lock = false) {
  const q = tx.select().from(privacyRequests).where(byId(orgId, id));
  const [row] = lock ? await q.for('update') : await q;
  return row as PrivacyRequestRow | undefined;
}

export async function updateRequest(tx: Tx, orgId: number, id: number, set: Partial<PrivacyRequestRow>) {
  await tx
    .update(privacyRequests)
    .set({ ...set, updatedAt: new Date() })
    .where(byId(orgId, id));
}

/** Marks an export downloaded, once: false when it was already (or is not done). */
export async function claimDownload(tx: Tx, orgId: number, id: number) {
  const rows = await tx
    .update(privacyRequests)
    .set({ downloadedAt: new Date(), updatedAt: new Date() })
    .where(
      and(
        byId(orgId, id),
        eq(privacyRequests.status, 'done'),
        isNull(privacyRequests.downloadedAt),
        // An erasure of the contact expires its exports at once (expirePending): the signed link's own expiry
        // is not the only one.
        gt(privacyRequests.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: privacyRequests.id });
  return rows.length === 1;
}

/** Exports of the contact whose file may still be on disk (an erasure removes them). */
export async function pendingExports(tx: Tx, orgId: number, contactId: number) {
  return tx
    .update(privacyRequests)
    .set({ expiresAt: sql`least(coalesce(expires_at, now()), now())`, updatedAt: new Date() })
    .where(
      and(
        eq(privacyRequests.organizationId, orgId),
        eq(privacyRequests.contactId, contactId),
        eq(privacyRequests.kind, 'data_export'),
        isNull(privacyRequests.downloadedAt),
      ),
    )
    .returning({ documentId: privacyRequests.documentId });
}

export interface PersonRow {
  id: number;
  document_id: string;
  name: string;
  email: string | null;
  phone: string | null;
  cpf: string | null;
  cnpj: string | null;
}

export async function personById(tx: Tx, orgId: number, contactId: number, lock = false) {
  const [row] = await queryRows<PersonRow>(
    tx,
    sql`select id, document_id, name, email, phone, cpf, cnpj from contacts
        where organization_id = ${orgId} and id = ${contactId} ${lock ? sql`for update` : sql``}`,
  );
  return row;
}
