import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';

/**
 * A sent quote whose validity has run out becomes `expired` (docs/products-quotes.md, "Expiry"): a periodic job
 * sets the status of every `sent` quote whose `validUntil` is before today in its organization's time zone, and
 * records it in the organization's audit log (`quote.expired`, no actor). Drafts, accepted and rejected quotes keep
 * their status whatever their date; a quote a person changes back to `sent` with a past date expires again.
 */
export const quoteExpiryQueue: QueueDef = { name: 'quote-expiry' };

/** How often the pass runs: a quote expires within this long after its last valid day ends. */
export const QUOTE_EXPIRY_SECONDS = 600;

/**
 * Expires the quotes past their date as of `now`; answers how many. One statement across organizations; rows a
 * person's edit holds are skipped (SKIP LOCKED) and taken by the next pass, which also re-checks their status. An
 * organization's time zone is checked by Node's ICU when set; one the database's time zone data does not know
 * (an older tzdata) counts as UTC here rather than failing the pass for every organization.
 */
export async function expireQuotes(db: Database, now = new Date()) {
  const rows = await queryRows<{ n: number }>(
    db.system,
    sql`with zones as (select name from pg_timezone_names),
        due as (
          select q.organization_id, q.id from quotes q join organizations o on o.id = q.organization_id
            left join zones z on z.name = o.time_zone
          where q.status = 'sent'
            and q.valid_until < (${now}::timestamptz at time zone coalesce(z.name, 'UTC'))::date
            ${ownOrganizations(db, sql`q.organization_id`)}
          for update of q skip locked),
        expired as (
          update quotes q set status = 'expired', updated_at = now()
          from due where q.organization_id = due.organization_id and q.id = due.id
          returning q.organization_id, q.document_id, q.number, q.valid_until),
        logged as (
          insert into audit_log (organization_id, actor_user_id, action, entity_document_id, data)
          select organization_id, null, 'quote.expired', document_id,
                 jsonb_build_object('number', number, 'validUntil', valid_until)
          from expired
          returning 1)
        select count(*)::int as n from logged`,
  );
  return rows[0].n;
}

export async function registerQuoteExpiry(deps: WorkerDeps) {
  await deps.jobs.every(quoteExpiryQueue, QUOTE_EXPIRY_SECONDS, async () => {
    await expireQuotes(deps.db);
  });
}
