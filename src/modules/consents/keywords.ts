import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import type { Jobs, QueueDef } from '../../platform/jobs/jobs.js';
import { findOrganizationById } from '../organizations/index.js';
import * as repo from './repo.js';

/**
 * WhatsApp stop keywords (docs/lgpd.md, "Consent"): an inbound text message that is exactly one of the
 * organization's keywords (trimmed, case- and accent-blind, trailing punctuation ignored) withdraws WhatsApp
 * marketing consent of every contact with the sender's phone and answers once with a confirmation. A repeat (or a
 * redelivery of the same message) finds the consent already withdrawn: nothing is recorded and nothing is sent.
 */

/**
 * At most once: pg-boss never runs a confirmation's job again (retryLimit 0), so a worker that dies after the send
 * (its job expires) cannot lead to a second one. A send refused in a way that proves nothing went out is tried
 * again as a new job (reply-worker.ts).
 */
export const stopReplyQueue: QueueDef = { name: 'consent-stop-reply', retryLimit: 0 };

export interface StopReplyJob {
  orgId: number;
  channelId: number;
  to: string;
  text: string;
  /** Sends tried before this one, each refused with proof that nothing was sent (absent: none). */
  attempt?: number;
}

export const STOP_REPLY_TEXT = (org: string) =>
  `Pronto: você não receberá mais mensagens de marketing${org ? ` de ${org}` : ''} por este WhatsApp. ` +
  'Mensagens sobre seus pedidos e atendimentos continuam.';

interface InboundText {
  from?: string;
  id?: string;
  type?: string;
  text?: { body?: string };
}

/** The comparable form of a keyword or a message: trimmed, upper-case, accents and end punctuation removed. */
export const keywordForm = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .trim()
    .replace(/[\s.!?]+$/u, '')
    .toUpperCase();

/** Contacts whose phone is the sender's (E.164 `+<wa_id>`). */
function contactsWithPhone(tx: Tx, orgId: number, waId: string) {
  return queryRows<{ id: number }>(
    tx,
    sql`select id from contacts where organization_id = ${orgId} and phone = ${`+${waId}`} order by id`,
  );
}

/**
 * In the webhook's transaction: the stop messages of a payload recorded, their confirmations enqueued (sent after
 * the commit by the worker). Answers how many withdrawals were recorded.
 */
export async function withdrawByStopKeywords(
  tx: Tx,
  jobs: Jobs,
  channel: { organizationId: number; id: number },
  messages: InboundText[],
) {
  const orgId = channel.organizationId;
  const texts = messages.filter(
    (m) => m.type === 'text' && typeof m.text?.body === 'string' && typeof m.from === 'string' && m.id,
  );
  if (texts.length === 0) return 0;
  const org = await findOrganizationById(tx, orgId);
  const keywords = new Set((org?.consentStopKeywords ?? []).map(keywordForm));
  let recorded = 0;
  for (const m of texts) {
    const keyword = keywordForm(m.text!.body!);
    if (!keywords.has(keyword)) continue;
    const ids = (await contactsWithPhone(tx, orgId, m.from!)).map((r) => Number(r.id));
    const states = await repo.statusesOf(tx, orgId, ids, 'whatsapp', 'marketing');
    const open = ids.filter((id) => states.get(id) !== 'withdrawn');
    if (open.length === 0) continue;
    await repo.insertConsents(
      tx,
      orgId,
      open.map((contactId) => ({
        contactId,
        channel: 'whatsapp' as const,
        purpose: 'marketing' as const,
        status: 'withdrawn' as const,
        legalBasis: 'consent' as const,
        source: 'inbox_keyword' as const,
        proof: { messageId: m.id, keyword, channel: channel.id },
        recordedBy: null,
      })),
    );
    recorded += open.length;
    await jobs.send(
      stopReplyQueue,
      {
        orgId,
        channelId: channel.id,
        to: m.from!,
        text: STOP_REPLY_TEXT(org?.name ?? ''),
      } satisfies StopReplyJob,
      { tx },
    );
  }
  return recorded;
}
