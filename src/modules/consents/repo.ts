import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import {
  type ConsentChannel,
  type ConsentPurpose,
  type ConsentSource,
  type ConsentStatus,
  contactConsents,
  type LegalBasis,
} from './table.js';

export interface NewConsent {
  contactId: number;
  channel: ConsentChannel;
  purpose: ConsentPurpose;
  status: ConsentStatus;
  legalBasis: LegalBasis;
  source: ConsentSource;
  proof: Record<string, unknown>;
  recordedBy: number | null;
}

export type ConsentRow = typeof contactConsents.$inferSelect;

/** Appends entries (one statement; the state trigger copies the latest of each pair). */
export async function insertConsents(tx: Tx, orgId: number, entries: NewConsent[]) {
  if (entries.length === 0) return [];
  return tx
    .insert(contactConsents)
    .values(entries.map((e) => ({ ...e, organizationId: orgId, documentId: newDocumentId() })))
    .returning();
}

export interface HistoryRow extends ConsentRow {
  recordedByDocumentId: string | null;
}

/** A contact's ledger, newest first, with who recorded each entry. */
export async function history(tx: Tx, orgId: number, contactId: number, limit: number) {
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    sql`select c.document_id, c.channel, c.purpose, c.status, c.legal_basis, c.source, c.proof, c.recorded_at,
               m.document_id as recorded_by_document_id
        from contact_consents c
        left join memberships m on m.organization_id = c.organization_id and m.id = c.recorded_by
        where c.organization_id = ${orgId} and c.contact_id = ${contactId}
        order by c.recorded_at desc, c.id desc
        limit ${limit}`,
  );
  return rows.map((r) => ({
    documentId: r.document_id as string,
    channel: r.channel as ConsentChannel,
    purpose: r.purpose as ConsentPurpose,
    status: r.status as ConsentStatus,
    legalBasis: r.legal_basis as LegalBasis,
    source: r.source as ConsentSource,
    proof: (r.proof ?? {}) as Record<string, unknown>,
    recordedAt: r.recorded_at as Date | string,
    recordedBy: (r.recorded_by_document_id as string | null) ?? null,
  }));
}

export interface StateRow {
  channel: ConsentChannel;
  purpose: ConsentPurpose;
  status: ConsentStatus;
  legal_basis: LegalBasis;
  source: ConsentSource;
  recorded_at: Date | string;
  document_id: string;
}

/** The current state of each (channel, purpose) a contact has an entry for. */
export function currentStates(tx: Tx, orgId: number, contactId: number) {
  return queryRows<StateRow>(
    tx,
    sql`select s.channel, s.purpose, s.status, c.legal_basis, c.source, s.recorded_at, c.document_id
        from contact_consent_states s
        join contact_consents c on c.organization_id = s.organization_id and c.id = s.consent_id
        where s.organization_id = ${orgId} and s.contact_id = ${contactId}`,
  );
}

/** The current status of (channel, purpose) for these contacts: absent from the map when nothing was recorded. */
export async function statusesOf(
  tx: Tx,
  orgId: number,
  contactIds: number[],
  channel: ConsentChannel,
  purpose: ConsentPurpose,
) {
  const out = new Map<number, ConsentStatus>();
  if (contactIds.length === 0) return out;
  const rows = await queryRows<{ contact_id: number; status: ConsentStatus }>(
    tx,
    sql`select contact_id, status from contact_consent_states
        where organization_id = ${orgId} and channel = ${channel} and purpose = ${purpose}
          and contact_id = any(${sql.param(contactIds)}::bigint[])`,
  );
  for (const r of rows) out.set(Number(r.contact_id), r.status);
  return out;
}
