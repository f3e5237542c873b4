import { and, asc, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { recordEvents } from '../../platform/events/outbox.js';
import { normalizePhone } from '../../platform/phones.js';
import { type ContactRow, insertContacts } from './repo.js';
import { contactCreatedEvents } from './service.js';
import { contacts } from './table.js';

const emailLike = (s: string) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(s);

/** Someone from outside: a lead ad's answers, a public form's submission. */
export interface OutsidePerson {
  /** The contact values (name, email, phone, city, …), after the source's mapping. */
  values: Record<string, string>;
  /** The name of a contact made without a name, e-mail or phone ("Lead 123", the form's name). */
  fallbackName: string;
}

/** A contact a lead gets: one found, or the index of one to make. */
type Slot = { row: ContactRow } | { make: number };

/**
 * The contacts of a batch of people from outside (lead ads, public forms), in the batch's order: the oldest contact with the lead's e-mail
 * (case-insensitive), else the oldest with its phone (E.164), else a new one (`created` for the lead that makes it,
 * with its `contact.created` event) — leads of one person in the batch share it, as if they came one after another.
 * Concurrent batches serialize on advisory locks of the e-mail and phone keys (all in one statement, in key order:
 * no deadlock), so they share contacts too. Four statements whatever the batch's size: locks, match, insert, events.
 */
export async function matchOrMakeContacts(
  tx: Tx,
  orgId: number,
  leads: OutsidePerson[],
): Promise<{ row: ContactRow; created: boolean }[]> {
  const keyed = leads.map((l) => {
    const email = l.values.email?.trim().toLowerCase();
    const parsed = l.values.phone ? normalizePhone(l.values.phone, l.values.country) : null;
    return {
      ...l,
      email: email && emailLike(email) ? email : null,
      phone: parsed?.ok ? parsed.phone : null,
    };
  });
  const emails = [...new Set(keyed.flatMap((l) => (l.email ? [l.email] : [])))];
  const phones = [...new Set(keyed.flatMap((l) => (l.phone ? [l.phone] : [])))];
  const keys = [...emails.map((e) => `e:${e}`), ...phones.map((p) => `p:${p}`)]
    .sort()
    .map((k) => `contact-match:${orgId}:${k}`);
  if (keys.length > 0)
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(k, 0))
          from jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) with ordinality as t(k, i) order by i`,
    );
  // The oldest contact of each e-mail and of each phone: one statement.
  const found =
    keys.length === 0
      ? []
      : await tx
          .select()
          .from(contacts)
          .where(
            and(
              eq(contacts.organizationId, orgId),
              sql`${contacts.id} in (
                (select distinct on (lower(email)) id from contacts
                  where organization_id = ${orgId} and lower(email) = any(${sql.param(emails)}::text[])
                  order by lower(email), id)
                union all
                (select distinct on (phone) id from contacts
                  where organization_id = ${orgId} and phone = any(${sql.param(phones)}::text[])
                  order by phone, id))`,
            ),
          )
          .orderBy(asc(contacts.id));
  const byEmail = new Map<string, Slot>();
  const byPhone = new Map<string, Slot>();
  // First come, first kept: contacts found (oldest first), then the ones this batch makes.
  const remember = (slot: Slot, email: string | null, phone: string | null) => {
    if (email && !byEmail.has(email)) byEmail.set(email, slot);
    if (phone && !byPhone.has(phone)) byPhone.set(phone, slot);
  };
  for (const row of found) remember({ row }, row.email?.toLowerCase() ?? null, row.phone);
  const toMake: typeof keyed = [];
  const slots = keyed.map((l) => {
    const hit = (l.email && byEmail.get(l.email)) || (l.phone && byPhone.get(l.phone));
    if (hit) return { slot: hit, created: false };
    const slot = { make: toMake.push(l) - 1 };
    remember(slot, l.email, l.phone);
    return { slot, created: true };
  });
  const made = await insertContacts(
    tx,
    orgId,
    toMake.map(({ values, email, phone, fallbackName }) => ({
      name: (values.name ?? email ?? phone ?? fallbackName).slice(0, 200),
      email,
      phone,
      city: values.city?.slice(0, 120) ?? null,
      state: values.state?.slice(0, 120) ?? null,
      country: values.country?.slice(0, 120) ?? null,
      address: values.address?.slice(0, 500) ?? null,
      postalCode: values.postal_code?.slice(0, 20) ?? null,
    })),
  );
  if (made.length > 0) await recordEvents(tx, orgId, await contactCreatedEvents(tx, orgId, made));
  return slots.map(({ slot, created }) => ({ row: 'row' in slot ? slot.row : made[slot.make], created }));
}
