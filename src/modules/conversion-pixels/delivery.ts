import type { Plan } from '../../config.js';
import type { Database } from '../../platform/db/client.js';
import type { WorkerDeps } from '../../platform/deps.js';
import type { EventConsumer } from '../../platform/events/dispatch.js';
import { registerPumpedWorker } from '../../platform/events/pumped-worker.js';
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
import * as repo from './repo.js';
import { type ConversionsConfig, sealContext } from './service.js';

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
  const list = await repo.enabledPixels(tx, orgId);
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
        pixelId: Number(p.id),
        dedupId: p.trigger_type === 'won' ? `${card}:won` : `${card}:phase:${p.phase_document_id}`,
        eventName: p.trigger_type === 'won' ? 'Purchase' : 'Lead',
        cardDocumentId: card,
        eventTime: e.createdAt,
      }));
  });
  if (rows.length) await repo.insertEvents(tx, orgId, rows);
};

/** The Conversions API event of a log row: user data normalised and SHA-256 hashed, never in clear. */
export function buildEvent(
  row: { dedupId: string; eventName: string; eventTime: Date },
  person: repo.CardPerson | undefined,
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
  const due = (await repo.dueEvents(db)).filter((r) => !onlyOrgs || onlyOrgs.has(Number(r.organization_id)));
  if (due.length === 0) return 0;
  const box = await secretBox(config, db);
  let sent = 0;
  for (const d of due) {
    const orgId = Number(d.organization_id);
    const claimed = await db.tenantTransaction(orgId, async (tx) => {
      const row = await repo.lockPendingEvent(tx, orgId, Number(d.id));
      if (!row || row.nextAttemptAt.getTime() > Date.now()) return undefined;
      await repo.updateEvent(tx, orgId, row.id, {
        nextAttemptAt: new Date(Date.now() + LEASE_MS),
        attempts: row.attempts + 1,
      });
      const pixel = (await repo.findPixelById(tx, orgId, row.pixelId))!;
      const person = row.cardDocumentId ? await repo.personOfCard(tx, orgId, row.cardDocumentId) : undefined;
      return { row: { ...row, attempts: row.attempts + 1 }, pixel, event: buildEvent(row, person) };
    });
    if (!claimed) continue;
    const { row, pixel, event } = claimed;
    if (!event.user_data.em && !event.user_data.ph) {
      await db.tenantTransaction(orgId, (tx) =>
        repo.updateEvent(tx, orgId, row.id, {
          status: 'skipped',
          payload: event,
          lastError: 'the card has no e-mail or phone to match a person',
        }),
      );
      continue;
    }
    try {
      const token = box.decrypt(pixel.accessTokenSealed, sealContext(orgId, pixel.documentId));
      const answer = await sendServerEvents(config, pixel.pixelId, token, [event]);
      await db.tenantTransaction(orgId, (tx) =>
        repo.updateEvent(tx, orgId, row.id, {
          status: 'sent',
          payload: event,
          response: answer ?? null,
          lastError: null,
          sentAt: new Date(),
        }),
      );
      sent++;
    } catch (err) {
      const permanent = err instanceof ProviderError && err.permanent;
      const final = permanent || row.attempts >= MAX_ATTEMPTS;
      await db.tenantTransaction(orgId, (tx) =>
        repo.updateEvent(tx, orgId, row.id, {
          status: final ? 'failed' : 'pending',
          payload: event,
          lastError: (err as Error).message.slice(0, 500),
          nextAttemptAt: new Date(Date.now() + 5_000 * 2 ** (row.attempts - 1)),
        }),
      );
    }
  }
  return sent;
}

/**
 * The sender: woken when the dispatcher fanned events out (a card reached a pixel's trigger), and about every two
 * seconds for retries that became due (platform/events/pumped-worker.ts).
 */
export function registerConversionWorkers(deps: WorkerDeps) {
  return registerPumpedWorker(deps, {
    name: 'conversions: send',
    queue: conversionsQueue,
    every: 2,
    work: () => sendDue(deps),
  });
}
