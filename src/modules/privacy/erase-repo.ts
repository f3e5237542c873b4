import { type SQL, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { ERASED } from './scrub-sql.js';

/**
 * The SQL of an erasure (erase-job.ts; the data map: docs/lgpd.md, "Erasure"). Every statement runs in the
 * erasure's tenant transaction and also filters by organization_id. `full` is the person's identifier pattern
 * with the name, used on the person's own rows; `sweep` the one used on every other row of the organization.
 */

export const ERASED_NAME = 'Erased contact';

const count = async (tx: Tx, query: SQL) =>
  (
    await queryRows<{ n: number }>(
      tx,
      sql`with done as (${query} returning 1) select count(*)::int as n from done`,
    )
  )[0].n;

/** The contact's suppressions keep only the keyed hash of the address (a second one already hashed: dropped). */
export async function hashSuppressions(tx: Tx, orgId: number, addresses: string[]) {
  if (addresses.length === 0) return 0;
  const hashed = await count(
    tx,
    sql`update suppressions s set address = public.crm_address_hash(s.address)
        where s.organization_id = ${orgId} and s.address = any(${sql.param(addresses)}::text[])
          and public.crm_address_hash(s.address) is not null
          and not exists (select 1 from suppressions h where h.organization_id = ${orgId}
                            and h.address = public.crm_address_hash(s.address))`,
  );
  await count(
    tx,
    sql`delete from suppressions where organization_id = ${orgId} and address = any(${sql.param(addresses)}::text[])`,
  );
  return hashed;
}

/** Campaign deliveries: the address gives way to a per-row marker; status and engagement times stay (stats). */
export const anonymiseRecipients = (
  tx: Tx,
  orgId: number,
  contactId: number,
  addresses: string[],
  full: string,
) =>
  count(
    tx,
    sql`update campaign_recipients set address = 'erased:' || id, error = public.crm_scrub_text(error, ${full})
        where organization_id = ${orgId} and (contact_id = ${contactId} or address = any(${sql.param(addresses)}::text[]))`,
  );

/** The person's conversations (theirs, or with their WhatsApp number) go, their messages with them. */
export const deleteConversations = (tx: Tx, orgId: number, contactId: number, waId: string | null) =>
  count(
    tx,
    sql`delete from conversations where organization_id = ${orgId}
          and (contact_id = ${contactId} or wa_id = ${waId ?? ''})`,
  );

/** Ids of the cards that reference the person. */
export async function personCardIds(tx: Tx, orgId: number, contactId: number) {
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`select id from cards where organization_id = ${orgId} and contact_id = ${contactId}`,
  );
  return rows.map((r) => Number(r.id));
}

/** The person's cards: their texts and dynamic-field values holding an identifier. */
export const scrubCards = (tx: Tx, orgId: number, cardIds: number[], full: string) =>
  count(
    tx,
    sql`update cards set title = public.crm_scrub_text(title, ${full}),
          description = public.crm_scrub_text(description, ${full}),
          fields = public.crm_scrub_jsonb(fields, ${full}), tracking = public.crm_scrub_jsonb(tracking, ${full})
        where organization_id = ${orgId} and id = any(${sql.param(cardIds)}::bigint[])`,
  );

/** Texts of what hangs off the person's cards: comments, tasks, meetings, quotes. */
export async function scrubCardChildren(
  tx: Tx,
  orgId: number,
  cardIds: number[],
  contactId: number,
  full: string,
) {
  const ids = sql`${sql.param(cardIds)}::bigint[]`;
  return (
    (await count(
      tx,
      sql`update comments set content = public.crm_scrub_text(content, ${full}),
            metadata = public.crm_scrub_jsonb(metadata, ${full})
          where organization_id = ${orgId} and card_id = any(${ids})`,
    )) +
    (await count(
      tx,
      sql`update tasks set name = public.crm_scrub_text(name, ${full}),
            description = public.crm_scrub_text(description, ${full})
          where organization_id = ${orgId} and card_id = any(${ids})`,
    )) +
    (await count(
      tx,
      sql`update calendar_meetings set title = public.crm_scrub_text(title, ${full}),
            description = public.crm_scrub_text(description, ${full}),
            location = public.crm_scrub_text(location, ${full}), attendees = public.crm_scrub_jsonb(attendees, ${full})
          where organization_id = ${orgId} and card_id = any(${ids})`,
    )) +
    (await count(
      tx,
      sql`update quotes set title = public.crm_scrub_text(title, ${full}), notes = public.crm_scrub_text(notes, ${full})
          where organization_id = ${orgId} and (card_id = any(${ids}) or contact_id = ${contactId})`,
    ))
  );
}

/** The person's uploads: rows deleted, storage keys answered (the files go after commit). */
export async function deleteCardFiles(tx: Tx, orgId: number, cardIds: number[]) {
  const rows = await queryRows<{ storage_key: string }>(
    tx,
    sql`delete from card_files where organization_id = ${orgId} and card_id = any(${sql.param(cardIds)}::bigint[])
        returning storage_key`,
  );
  return rows.map((r) => r.storage_key);
}

/** The timeline: every entry's text and metadata. */
export const scrubTimeline = (tx: Tx, orgId: number, contactId: number) =>
  count(
    tx,
    sql`update contact_activities set description = ${ERASED}, metadata = '{}'::jsonb
        where organization_id = ${orgId} and contact_id = ${contactId}`,
  );

/**
 * Consent proofs (IP, form, message ids) emptied; the ledger's decisions stay. The ledger is append-only (its
 * trigger refuses an UPDATE; a DELETE is allowed): the person's entries are deleted and written again, same ids,
 * without their proof, in the erasure's transaction.
 */
export async function scrubConsentProofs(tx: Tx, orgId: number, contactId: number) {
  const [t] = await queryRows<{ t: string | null }>(
    tx,
    sql`select to_regclass('public.contact_consents')::text as t`,
  );
  if (!t.t) return 0;
  const columns = sql`organization_id, id, document_id, contact_id, channel, purpose, status, legal_basis, source,
    recorded_at, recorded_by`;
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    sql`delete from contact_consents where organization_id = ${orgId} and contact_id = ${contactId}
        returning ${columns}`,
  );
  if (rows.length === 0) return 0;
  await tx.execute(
    sql`insert into contact_consents (${columns}, proof) overriding system value
        select ${columns}, '{}'::jsonb from jsonb_populate_recordset(null::contact_consents, ${JSON.stringify(rows)}::jsonb)`,
  );
  return rows.length;
}

/** The contact row: every personal column emptied, the name a placeholder (search copies follow by trigger). */
export const anonymiseContact = (tx: Tx, orgId: number, contactId: number) =>
  count(
    tx,
    sql`update contacts set name = ${ERASED_NAME}, email = null, phone = null, cpf = null, cnpj = null,
          address = null, city = null, state = null, country = null, postal_code = null, birthdate = null,
          first_buy_date = null, custom_fields = '{}'::jsonb, updated_at = now()
        where organization_id = ${orgId} and id = ${contactId}`,
  );
