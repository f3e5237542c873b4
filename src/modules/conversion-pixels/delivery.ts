import { and, eq, sql } from 'drizzle-orm';
import type { Plan } from '../../config.js';
import { type Database, queryRows, type Tx } from '../../platform/db/client.js';
import { ownOrganizations } from '../../platform/db/namespace.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { EventConsumer } from '../../platform/events/dispatch.js';
import type { QueueDef } from '../../platform/jobs/jobs.js';
import {
  hashEmail,
  hashPhone,
  type ServerEvent,
  sendServerEvents,
} from '../../platform/providers/conversions/client.js';
import { ProviderError } from '../../platform/providers/provider-error.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { planFeatures } from '../../platform/tenancy/context.js';
import { type ConversionsConfig, sealContext } from './service.js';
import { conversionEvents as events, conversionPixels as pixels } from './table.js';

export const MAX_ATTEMPTS = 6;
const LEASE_MS = 60_000;
export const conversionsQueue: QueueDef = { name: 'conversions-send', retryLimit: 0 };

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * The pixels' share of the event dispatch: a card that reached a pixel's trigger (card.won, or card.phase_changed
 * into its phase) gets one log row keyed card + trigger, so a card won twice is sent once.
 */
export const conversionFanOut: EventConsumer = async (tx, orgId, batch) => {
  const relevant = batch.filter((e) => e.type === 'card.won' || e.type === 'card.phase_changed');
  if (relevant.length === 0) return;
  const list = await queryRows<{
    id: number;
    trigger_type: string;
    board_document_id: string;
    phase_document_id: string | null;
    plan: string;
  }>(
    tx,
    sql`select p.id, p.trigger_type, b.document_id as board_document_id, ph.document_id as phase_document_id, o.plan
        from conversion_pixels p
        join organizations o on o.id = p.organization_id
        join boards b on b.organization_id = p.organization_id and b.id = p.board_id
        left join phases ph on ph.organization_id = p.organization_id and ph.id = p.trigger_phase_id
        where p.organization_id = ${orgId} and p.enabled`,
  );
  if (list.length === 0 || !planFeatures[list[0].plan as Plan]?.includes('conversions')) return;
  const rows = relevant.flatMap((e) => {
    const data = e.data as {
      card?: { documentId?: string; board?: { documentId?: string } };
      to?: { documentId?: string };
    };
    const card = str(data.card?.documentId);
    if (!card) return [];
    return list
      .filter((p) => p.board_document_id === data.card?.board?.documentId)
      .filter((p) =>
        p.trigger_type === 'won'
          ? e.type === 'card.won'
          : e.type === 'card.phase_changed' && p.phase_document_id === data.to?.documentId,
      )
      .map((p) => ({
        organizationId: orgId,
        pixelId: Number(p.id),
        dedupId: p.trigger_type === 'won' ? `${card}:won` : `${card}:phase:${p.phase_document_id}`,
        eventName: p.trigger_type === 'won' ? 'Purchase' : 'Lead',
        cardDocumentId: card,
        eventTime: e.createdAt,
      }));
  });
  if (rows.length) await tx.insert(events).values(rows).onConflictDoNothing();
};

/** What the card tells about its person: the contact's e-mail and phone, else the card's e-mail / phone fields. */
async function personOf(tx: Tx, orgId: number, cardDocumentId: string) {
  const [row] = await queryRows<{
    value: string;
    currency: string;
    email: string | null;
    phone: string | null;
    country: string | null;
    field_emails: string[] | null;
    field_phones: string[] | null;
  }>(
    tx,
    sql`select c.value, b.currency, ct.email, ct.phone, ct.country,
          (select array_agg(c.fields->>f.document_id) from field_definitions f
            where f.organization_id = c.organization_id and f.board_id = c.board_id and f.type = 'email'
              and c.fields ? f.document_id) as field_emails,
          (select array_agg(c.fields->>f.document_id) from field_definitions f
            where f.organization_id = c.organization_id and f.board_id = c.board_id and f.type = 'phone'
              and c.fields ? f.document_id) as field_phones
        from cards c
        join boards b on b.organization_id = c.organization_id and b.id = c.board_id
        left join contacts ct on ct.organization_id = c.organization_id and ct.id = c.contact_id
        where c.organization_id = ${orgId} and c.document_id = ${cardDocumentId}`,
  );
  return row;
}

/** The Conversions API event of a log row: user data normalised and SHA-256 hashed, never in clear. */
export function buildEvent(
  row: { dedupId: string; eventName: string; eventTime: Date },
  person: Awaited<ReturnType<typeof personOf>> | undefined,
): ServerEvent {
  const emails = [person?.email, ...(person?.field_emails ?? [])].filter((x): x is string => !!x?.trim());
  const phones = [person?.phone, ...(person?.field_phones ?? [])].filter((x): x is string => !!x?.trim());
  const em = [...new Set(emails.map(hashEmail))];
  const ph = [...new Set(phones.map((p) => hashPhone(p, person?.country)).filter((x): x is string => !!x))];
  const value = Number(person?.value ?? 0);
  return {
    event_name: row.eventName,
    event_time: Math.floor(row.eventTime.getTime() / 1000),
    event_id: row.dedupId,
    action_source: 'system_generated',
    user_data: { ...(em.length ? { em } : {}), ...(ph.length ? { ph } : {}) },
    ...(row.eventName === 'Purchase' ? { custom_data: { value, currency: person?.currency ?? 'USD' } } : {}),
  };
}

/**
 * Sends the pending log rows: each claimed with a lease (SKIP LOCKED, so two workers never send one at once),
 * sent, recorded; failures retried with backoff (5 s doubling, 6 attempts). The provider deduplicates on
 * event_id, so a resend after a crash counts once there too.
 */
export async function sendDue(
  deps: { db: Database; config: ConversionsConfig & WorkerDeps['config'] },
  onlyOrgs?: Set<number>,
) {
  const { db, config } = deps;
  const due = (
    await queryRows<{ organization_id: number; id: number }>(
      db.system,
      sql`select organization_id, id from conversion_events
          where status = 'pending' and next_attempt_at <= now() ${ownOrganizations(db, sql`organization_id`)}
          order by id limit 200`,
    )
  ).filter((r) => !onlyOrgs || onlyOrgs.has(Number(r.organization_id)));
  if (due.length === 0) return 0;
  const box = await secretBox(config, db);
  let sent = 0;
  for (const d of due) {
    const orgId = Number(d.organization_id);
    const claimed = await db.tenantTransaction(orgId, async (tx) => {
      const [row] = await tx
        .select()
        .from(events)
        .where(
          and(eq(events.organizationId, orgId), eq(events.id, Number(d.id)), eq(events.status, 'pending')),
        )
        .for('update', { skipLocked: true });
      if (!row || row.nextAttemptAt.getTime() > Date.now()) return undefined;
      await tx
        .update(events)
        .set({ nextAttemptAt: new Date(Date.now() + LEASE_MS), attempts: row.attempts + 1 })
        .where(and(eq(events.organizationId, orgId), eq(events.id, row.id)));
      const [pixel] = await tx
        .select()
        .from(pixels)
        .where(and(eq(pixels.organizationId, orgId), eq(pixels.id, row.pixelId)));
      const person = row.cardDocumentId ? await personOf(tx, orgId, row.cardDocumentId) : undefined;
      return { row: { ...row, attempts: row.attempts + 1 }, pixel, event: buildEvent(row, person) };
    });
    if (!claimed) continue;
    const { row, pixel, event } = claimed;
    const where = and(eq(events.organizationId, orgId), eq(events.id, row.id));
    if (!event.user_data.em && !event.user_data.ph) {
      await db.tenantTransaction(orgId, (tx) =>
        tx
          .update(events)
          .set({
            status: 'skipped',
            payload: event,
            lastError: 'the card has no e-mail or phone to match a person',
          })
          .where(where),
      );
      continue;
    }
    try {
      const token = box.decrypt(pixel.accessTokenSealed, sealContext(orgId, pixel.documentId));
      const answer = await sendServerEvents(config, pixel.pixelId, token, [event]);
      await db.tenantTransaction(orgId, (tx) =>
        tx
          .update(events)
          .set({
            status: 'sent',
            payload: event,
            response: answer ?? null,
            lastError: null,
            sentAt: new Date(),
          })
          .where(where),
      );
      sent++;
    } catch (err) {
      const permanent = err instanceof ProviderError && err.permanent;
      const final = permanent || row.attempts >= MAX_ATTEMPTS;
      await db.tenantTransaction(orgId, (tx) =>
        tx
          .update(events)
          .set({
            status: final ? 'failed' : 'pending',
            payload: event,
            lastError: (err as Error).message.slice(0, 500),
            nextAttemptAt: new Date(Date.now() + 5_000 * 2 ** (row.attempts - 1)),
          })
          .where(where),
      );
    }
  }
  return sent;
}

export async function registerConversionWorkers(deps: WorkerDeps) {
  await deps.jobs.every(conversionsQueue, 2, async () => {
    await sendDue(deps);
  });
}
