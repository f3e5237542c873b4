import { type SQL, sql } from 'drizzle-orm';

/**
 * What a person's data export holds (docs/lgpd.md, "Access and portability"): one section per kind of record,
 * each a JSON and a CSV file in the zip. Every query reads one page after a keyset (`_key`), so a person with a
 * hundred thousand messages is written page by page, never held whole.
 */

export interface ExportSection {
  name: string;
  /** A page of rows with `_key` (ascending) above `after`; `p` gives org, contact, limit. */
  page(p: { orgId: number; contactId: number; after: number; limit: number }): SQL;
  /** The table must exist (a module's table that may not be in this database). */
  requires?: string;
}

const personCards = (orgId: number, contactId: number) =>
  sql`(select id from cards where organization_id = ${orgId} and contact_id = ${contactId})`;

export const EXPORT_SECTIONS: ExportSection[] = [
  {
    name: 'contact',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select id as _key, document_id, name, email, phone, contact_type, cpf, cnpj, address, city, state, country,
            postal_code, birthdate, first_buy_date, custom_fields, created_at, updated_at
          from contacts where organization_id = ${orgId} and id = ${contactId} and id > ${after} limit ${limit}`,
  },
  {
    name: 'timeline',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select id as _key, document_id, activity_type, description, performed_at, metadata
          from contact_activities where organization_id = ${orgId} and contact_id = ${contactId} and id > ${after}
          order by id limit ${limit}`,
  },
  {
    name: 'cards',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select c.id as _key, c.document_id, b.name as board, p.name as phase, c.title, c.description, c.value,
            c.due_date, c.creation_source, c.tracking, c.created_at, c.updated_at,
            coalesce((select jsonb_object_agg(coalesce(f.label, v.key), v.value)
                      from jsonb_each(c.fields) v
                      left join field_definitions f on f.organization_id = c.organization_id and f.document_id = v.key),
                     '{}'::jsonb) as field_values
          from cards c
          join boards b on b.organization_id = c.organization_id and b.id = c.board_id
          left join phases p on p.organization_id = c.organization_id and p.id = c.current_phase_id
          where c.organization_id = ${orgId} and c.contact_id = ${contactId} and c.id > ${after}
          order by c.id limit ${limit}`,
  },
  {
    name: 'card_comments',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select m.id as _key, m.document_id, c.document_id as card, m.content, m.type, m.created_at
          from comments m join cards c on c.organization_id = m.organization_id and c.id = m.card_id
          where m.organization_id = ${orgId} and m.card_id in ${personCards(orgId, contactId)} and m.id > ${after}
          order by m.id limit ${limit}`,
  },
  {
    name: 'tasks',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select t.id as _key, t.document_id, c.document_id as card, t.name, t.description, t.type, t.task_status,
            t.priority, t.due_date, t.created_at
          from tasks t join cards c on c.organization_id = t.organization_id and c.id = t.card_id
          where t.organization_id = ${orgId} and t.card_id in ${personCards(orgId, contactId)} and t.id > ${after}
          order by t.id limit ${limit}`,
  },
  {
    name: 'conversations',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select id as _key, id, wa_id, status, last_message_at, created_at
          from conversations where organization_id = ${orgId} and contact_id = ${contactId} and id > ${after}
          order by id limit ${limit}`,
  },
  {
    name: 'messages',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select m.id as _key, m.id, m.conversation_id, m.direction, m.content_type, m.content, m.attachments,
            m.template, m.status, m.created_at
          from chat_messages m
          where m.organization_id = ${orgId} and m.id > ${after} and m.conversation_id in
            (select id from conversations where organization_id = ${orgId} and contact_id = ${contactId})
          order by m.id limit ${limit}`,
  },
  {
    name: 'campaign_deliveries',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select r.id as _key, k.document_id as campaign, k.name as campaign_name, r.address, r.status,
            r.skip_reason, r.sent_at, r.delivered_at, r.opened_at, r.clicked_at, r.bounced_at, r.complained_at
          from campaign_recipients r
          join campaigns k on k.organization_id = r.organization_id and k.id = r.campaign_id
          where r.organization_id = ${orgId} and r.contact_id = ${contactId} and r.id > ${after}
          order by r.id limit ${limit}`,
  },
  {
    name: 'consents',
    requires: 'contact_consents',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select id as _key, document_id, channel, purpose, status, legal_basis, source, proof, recorded_at
          from contact_consents where organization_id = ${orgId} and contact_id = ${contactId} and id > ${after}
          order by id limit ${limit}`,
  },
  {
    name: 'quotes',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select id as _key, document_id, title, status, currency, notes, created_at
          from quotes where organization_id = ${orgId} and id > ${after}
            and (contact_id = ${contactId} or card_id in ${personCards(orgId, contactId)})
          order by id limit ${limit}`,
  },
  {
    name: 'suppressions',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select s.id as _key, s.document_id, s.address, s.reason, s.created_at
          from suppressions s join contacts c on c.organization_id = s.organization_id and c.id = ${contactId}
          where s.organization_id = ${orgId} and s.id > ${after}
            and s.address in (lower(trim(c.email)), '+' || regexp_replace(c.phone, '[^0-9]', '', 'g'))
          order by s.id limit ${limit}`,
  },
  {
    name: 'files',
    page: ({ orgId, contactId, after, limit }) =>
      sql`select f.id as _key, f.document_id, c.document_id as card, f.name, f.mime_type, f.size, f.sha256,
            f.storage_key, f.created_at
          from card_files f join cards c on c.organization_id = f.organization_id and c.id = f.card_id
          where f.organization_id = ${orgId} and f.card_id in ${personCards(orgId, contactId)} and f.id > ${after}
          order by f.id limit ${limit}`,
  },
];
