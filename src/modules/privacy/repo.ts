import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type PRIVACY_REQUEST_KINDS, privacyRequests } from './table.js';

export type PrivacyRequestRow = typeof privacyRequests.$inferSelect;
export type PrivacyRequestKind = (typeof PRIVACY_REQUEST_KINDS)[number];

const byId = (orgId: number, id: number) =>
  and(eq(privacyRequests.organizationId, orgId), eq(privacyRequests.id, id));

export async function insertRequest(
  tx: Tx,
  orgId: number,
  values: { kind: PrivacyRequestKind; contactId: number; membershipId: number; tokenHash: string | null },
) {
  const [row] = await tx
    .insert(privacyRequests)
    .values({
      organizationId: orgId,
      documentId: newDocumentId(),
      kind: values.kind,
      contactId: values.contactId,
      requestedByMembershipId: values.membershipId,
      tokenHash: values.tokenHash,
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

/** The request of an export link (any organization: the token is the credential; its hash is unique). */
export async function requestByTokenHash(ex: Executor, tokenHash: string) {
  const [row] = await queryRows<{ organization_id: number; id: number }>(
    ex,
    sql`select organization_id, id from privacy_requests where token_hash = ${tokenHash}`,
  );
  return row && { orgId: Number(row.organization_id), id: Number(row.id) };
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

export const ERASED_DURING_EXPORT =
  'The contact was erased while this export was being made: there is nothing to download (a new export holds what is left)';

/**
 * An erasure stops the contact's exports not yet downloaded, in its transaction: a queued or running one fails
 * (its job then publishes nothing, see publishExport), a done one expires at once (its link is refused). Answers
 * their documentIds: their files are removed after commit.
 */
export async function stopExports(tx: Tx, orgId: number, contactId: number) {
  const unfinished = sql`${privacyRequests.status} in ('queued', 'running')`;
  return tx
    .update(privacyRequests)
    .set({
      status: sql`case when ${unfinished} then 'failed' else ${privacyRequests.status} end`,
      error: sql`case when ${unfinished} then ${ERASED_DURING_EXPORT} else ${privacyRequests.error} end`,
      finishedAt: sql`case when ${unfinished} then now() else ${privacyRequests.finishedAt} end`,
      expiresAt: sql`least(coalesce(${privacyRequests.expiresAt}, now()), now())`,
      updatedAt: new Date(),
    })
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

/**
 * The export's end: done, only while it is still running. False when an erasure of the contact failed it
 * meanwhile (stopExports): the row lock orders the two, so an export is either published before the erasure
 * (which then expires it) or not at all.
 */
export async function publishExport(
  tx: Tx,
  orgId: number,
  id: number,
  set: Pick<PrivacyRequestRow, 'fileBytes' | 'expiresAt' | 'summary'>,
) {
  const rows = await tx
    .update(privacyRequests)
    .set({ ...set, status: 'done', finishedAt: new Date(), updatedAt: new Date() })
    .where(and(byId(orgId, id), eq(privacyRequests.status, 'running')))
    .returning({ id: privacyRequests.id });
  return rows.length === 1;
}

/** A running request failed with its reason; a request already finished (an erasure that committed) stays. */
export async function failRequest(tx: Tx, orgId: number, id: number, error: string) {
  await tx
    .update(privacyRequests)
    .set({ status: 'failed', error, finishedAt: new Date(), updatedAt: new Date() })
    .where(and(byId(orgId, id), eq(privacyRequests.status, 'running')));
}

/**
 * The person's requests take turns (docs/lgpd.md, "Request states"): an erasure holds this lock for its whole
 * transaction and an export's job takes it to start, so an export starts before the erasure (and is then failed by
 * it) or after it (and reads what the erasure left).
 */
export async function lockPerson(tx: Tx, orgId: number, contactId: number) {
  await tx.execute(
    sql`select pg_advisory_xact_lock(hashtextextended(${`privacy:${orgId}:${contactId}`}, 0))`,
  );
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
