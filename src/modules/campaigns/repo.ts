import { and, asc, count, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { newDocumentId } from '../../platform/db/ids.js';
import { type CompiledList, countIf, type QueryModel } from '../../platform/http/list-query.js';
import { chatChannels } from '../channels/table.js';
import { emailTemplates } from '../email-templates/table.js';
import { segments } from '../segments/table.js';
import { whatsappTemplates } from '../templates/table.js';
import { type CampaignStatus, campaignRecipients, campaigns, suppressions } from './table.js';

export const campaignModel: QueryModel = {
  table: 'campaigns',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    name: { column: 'name', type: 'string' },
    campaignStatus: {
      column: 'status',
      type: 'string',
      values: ['draft', 'scheduled', 'processing', 'paused', 'completed', 'failed', 'cancelled'],
    },
    scheduledAt: { column: 'scheduled_at', type: 'datetime' },
    startedAt: { column: 'started_at', type: 'datetime' },
    completedAt: { column: 'completed_at', type: 'datetime' },
    createdAt: { column: 'created_at', type: 'datetime' },
    updatedAt: { column: 'updated_at', type: 'datetime' },
  },
};

export const suppressionModel: QueryModel = {
  table: 'suppressions',
  fields: {
    documentId: { column: 'document_id', type: 'string' },
    address: { column: 'address', type: 'string' },
    reason: { column: 'reason', type: 'string', values: ['unsubscribed', 'bounced', 'complained', 'manual'] },
    createdAt: { column: 'created_at', type: 'datetime' },
  },
};

export const recipientModel: QueryModel = {
  table: 'campaign_recipients',
  fields: {
    address: { column: 'address', type: 'string' },
    status: { column: 'status', type: 'string', values: ['pending', 'sending', 'sent', 'failed', 'skipped'] },
    skipReason: { column: 'skip_reason', type: 'string' },
    sentAt: { column: 'sent_at', type: 'datetime' },
    id: { column: 'id', type: 'number' },
  },
};

export type CampaignRow = typeof campaigns.$inferSelect;
export type CampaignValues = Partial<Omit<CampaignRow, 'organizationId' | 'id' | 'documentId'>>;

const columns = {
  campaign: campaigns,
  channel: { documentId: chatChannels.documentId, name: chatChannels.name, type: chatChannels.type },
  segment: { documentId: segments.documentId, name: segments.name },
  emailTemplate: { documentId: emailTemplates.documentId, name: emailTemplates.name },
  whatsappTemplate: { documentId: whatsappTemplates.documentId, name: whatsappTemplates.name },
};

function selectCampaigns(tx: Tx) {
  return tx
    .select(columns)
    .from(campaigns)
    .innerJoin(
      chatChannels,
      and(
        eq(chatChannels.organizationId, campaigns.organizationId),
        eq(chatChannels.id, campaigns.channelId),
      ),
    )
    .leftJoin(
      segments,
      and(eq(segments.organizationId, campaigns.organizationId), eq(segments.id, campaigns.segmentId)),
    )
    .leftJoin(
      emailTemplates,
      and(
        eq(emailTemplates.organizationId, campaigns.organizationId),
        eq(emailTemplates.id, campaigns.emailTemplateId),
      ),
    )
    .leftJoin(
      whatsappTemplates,
      and(
        eq(whatsappTemplates.organizationId, campaigns.organizationId),
        eq(whatsappTemplates.id, campaigns.whatsappTemplateId),
      ),
    );
}
export type CampaignView = Awaited<ReturnType<typeof findCampaign>> & object;

export async function findCampaign(tx: Tx, orgId: number, documentId: string) {
  const [row] = await selectCampaigns(tx).where(
    and(eq(campaigns.organizationId, orgId), eq(campaigns.documentId, documentId)),
  );
  return row;
}

export async function findCampaignById(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select({ documentId: campaigns.documentId, name: campaigns.name })
    .from(campaigns)
    .where(and(eq(campaigns.organizationId, orgId), eq(campaigns.id, id)));
  return row;
}

export async function listCampaigns(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(campaigns.organizationId, orgId), q.where);
  const rows = await selectCampaigns(tx).where(where).orderBy(q.orderBy).offset(q.offset).limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(campaigns).where(where));
  return { rows, total };
}

export async function lockCampaign(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.organizationId, orgId), eq(campaigns.documentId, documentId)))
    .for('update');
  return row as CampaignRow | undefined;
}

export async function campaignById(tx: Tx, orgId: number, id: number, lock = false) {
  const q = tx
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.organizationId, orgId), eq(campaigns.id, id)));
  const [row] = lock ? await q.for('update') : await q;
  return row as CampaignRow | undefined;
}

export async function insertCampaign(
  tx: Tx,
  orgId: number,
  values: CampaignValues & { name: string; channelId: number },
) {
  const [row] = await tx
    .insert(campaigns)
    .values({ ...values, organizationId: orgId, documentId: newDocumentId() })
    .returning();
  return row;
}

export async function updateCampaign(tx: Tx, orgId: number, id: number, values: CampaignValues) {
  await tx
    .update(campaigns)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(campaigns.organizationId, orgId), eq(campaigns.id, id)));
}

/** Moves the status only from one of `from` (compare-and-set): the caller learns whether it won. */
export async function moveStatus(
  tx: Tx,
  orgId: number,
  id: number,
  from: CampaignStatus[],
  values: CampaignValues & { status: CampaignStatus },
) {
  const rows = await tx
    .update(campaigns)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(campaigns.organizationId, orgId), eq(campaigns.id, id), inArray(campaigns.status, from)))
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

export async function deleteCampaign(tx: Tx, orgId: number, id: number) {
  await tx.delete(campaigns).where(and(eq(campaigns.organizationId, orgId), eq(campaigns.id, id)));
}

// ---- stats

const zeroStats = {
  total: 0,
  pending: 0,
  sent: 0,
  failed: 0,
  skipped: 0,
  skippedNoConsent: 0,
  delivered: 0,
  opened: 0,
  clicked: 0,
  bounced: 0,
};
export type StatsRow = typeof zeroStats;

/** CampaignStats of several campaigns in one aggregate over their recipients. */
export async function statsOf(tx: Tx, orgId: number, campaignIds: number[]) {
  const out = new Map<number, StatsRow>();
  if (campaignIds.length === 0) return out;
  const rows = await queryRows<StatsRow & { campaign_id: number }>(
    tx,
    sql`select campaign_id,
          count(*)::int as total,
          count(*) filter (where status in ('pending', 'sending'))::int as pending,
          count(*) filter (where status = 'sent')::int as sent,
          count(*) filter (where status = 'failed')::int as failed,
          count(*) filter (where status = 'skipped')::int as skipped,
          count(*) filter (where status = 'skipped' and skip_reason in ('no_consent', 'consent_withdrawn'))::int
            as "skippedNoConsent",
          count(delivered_at)::int as delivered,
          count(opened_at)::int as opened,
          count(clicked_at)::int as clicked,
          count(bounced_at)::int as bounced
        from campaign_recipients
        where organization_id = ${orgId} and campaign_id in ${sql`(${sql.join(
          campaignIds.map((i) => sql`${i}`),
          sql`, `,
        )})`}
        group by campaign_id`,
  );
  for (const id of campaignIds) out.set(id, { ...zeroStats });
  for (const r of rows) {
    const { campaign_id, ...stats } = r;
    out.set(Number(campaign_id), stats);
  }
  return out;
}

// ---- audience

/**
 * Fixes the audience: the segment's contacts with an address for the channel, one row per contact and per
 * address (two contacts sharing an e-mail get one message); suppressed addresses are rows skipped as such.
 */
export async function insertAudience(
  tx: Tx,
  orgId: number,
  campaignId: number,
  channelType: 'email' | 'whatsapp' | 'sms',
  predicate: SQL,
) {
  const address =
    channelType === 'email'
      ? sql`lower(trim(contacts.email))`
      : sql`'+' || regexp_replace(contacts.phone, '[^0-9]', '', 'g')`;
  const valid =
    channelType === 'email'
      ? sql`contacts.email ~ '^[^@\\s]+@[^@\\s]+$'`
      : sql`length(regexp_replace(coalesce(contacts.phone, ''), '[^0-9]', '', 'g')) between 8 and 15`;
  const rows = await queryRows<{ n: number }>(
    tx,
    sql`with inserted as (
          insert into campaign_recipients (organization_id, campaign_id, contact_id, address, status, skip_reason)
          select ${orgId}, ${campaignId}, contacts.id, ${address},
                 case when s.id is null then 'pending' else 'skipped' end,
                 case when s.id is null then null else 'suppressed:' || s.reason end
          from contacts
          -- An erased person's suppression holds only the keyed hash of the address (docs/lgpd.md, "Erasure"):
          -- computed per row only when the organization has such an entry (the exists is evaluated once).
          left join suppressions s on s.organization_id = contacts.organization_id
            and s.address in (${address}, case when exists (select 1 from suppressions h
                where h.organization_id = ${orgId} and h.address >= 'hmac:' and h.address < 'hmac;')
              then public.crm_address_hash(${address}) end)
          where contacts.organization_id = ${orgId} and ${valid} and ${predicate}
          order by contacts.id
          on conflict do nothing
          returning 1)
        select count(*)::int as n from inserted`,
  );
  return rows[0].n;
}

// ---- dispatch

export interface ClaimedRecipient {
  id: number;
  contact_id: number;
  address: string;
  attempts: number;
  contact_document_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  custom_fields: Record<string, unknown> | null;
}

/** Claims up to `limit` due pending recipients (pending → sending, committed by the caller before any send). */
export async function claimBatch(tx: Tx, orgId: number, campaignId: number, limit: number) {
  return queryRows<ClaimedRecipient>(
    tx,
    sql`with picked as (
          select id from campaign_recipients
          where organization_id = ${orgId} and campaign_id = ${campaignId} and status = 'pending'
            and (next_attempt_at is null or next_attempt_at <= now())
          order by id
          limit ${limit}
          for update skip locked),
        claimed as (
          update campaign_recipients r set status = 'sending', claimed_at = now(), attempted_at = null,
            attempts = r.attempts + 1
          from picked where r.organization_id = ${orgId} and r.id = picked.id
          returning r.id, r.contact_id, r.address, r.attempts)
        select claimed.*, c.document_id as contact_document_id, c.name, c.email, c.phone, c.custom_fields
        from claimed left join contacts c on c.organization_id = ${orgId} and c.id = claimed.contact_id
        order by claimed.id`,
  );
}

/**
 * Rows left `sending` by a dispatcher that died. Never attempted (no `attempted_at`): back to pending, sent by the
 * next batch. Attempted: the outcome is unknown, so they are never sent again (failed, "interrupted").
 */
export async function failInterrupted(tx: Tx, orgId: number, campaignId: number, leaseSeconds: number) {
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`update campaign_recipients set
          status = case when attempted_at is null then 'pending' else 'failed' end,
          attempts = case when attempted_at is null then greatest(attempts - 1, 0) else attempts end,
          claimed_at = case when attempted_at is null then null else claimed_at end,
          error = case when attempted_at is null then error
            else 'interrupted mid-send (process stopped); outcome unknown, not resent (at-most-once)' end
        where organization_id = ${orgId} and campaign_id = ${campaignId} and status = 'sending'
          and claimed_at < now() - make_interval(secs => ${leaseSeconds})
        returning id`,
  );
  return rows.length;
}

/** Claimed rows whose send waits `delayMs` for the channel's slot: their lease starts then (failInterrupted). */
export async function leaseFrom(tx: Tx, orgId: number, ids: number[], delayMs: number) {
  if (ids.length === 0) return;
  await tx.execute(
    sql`update campaign_recipients set claimed_at = now() + make_interval(secs => ${delayMs / 1000}::float8)
        where organization_id = ${orgId} and id in ${sql`(${sql.join(
          ids.map((i) => sql`${i}`),
          sql`, `,
        )})`} and status = 'sending'`,
  );
}

/** A claimed recipient's send starts now (committed before the provider is called). */
export async function markAttempted(tx: Tx, orgId: number, id: number) {
  await tx.execute(
    sql`update campaign_recipients set attempted_at = now()
        where organization_id = ${orgId} and id = ${id} and status = 'sending'`,
  );
}

export interface SendResult {
  id: number;
  outcome: 'sent' | 'failed' | 'retry' | 'skipped';
  messageId?: string;
  error?: string;
  retryInSeconds?: number;
}

export async function settleResults(tx: Tx, orgId: number, results: SendResult[]) {
  // In id order, as claimBatch locked them: rows are always taken in one order (no deadlock between writers).
  for (const r of [...results].sort((a, b) => a.id - b.id)) {
    if (r.outcome === 'sent')
      await tx
        .update(campaignRecipients)
        .set({ status: 'sent', providerMessageId: r.messageId, sentAt: new Date(), error: null })
        .where(and(eq(campaignRecipients.organizationId, orgId), eq(campaignRecipients.id, r.id)));
    else if (r.outcome === 'retry')
      await tx
        .update(campaignRecipients)
        .set({
          status: 'pending',
          error: r.error,
          nextAttemptAt: sql`now() + make_interval(secs => ${r.retryInSeconds ?? 30})`,
        })
        .where(and(eq(campaignRecipients.organizationId, orgId), eq(campaignRecipients.id, r.id)));
    else
      await tx
        .update(campaignRecipients)
        .set({
          status: r.outcome,
          error: r.outcome === 'failed' ? r.error : null,
          skipReason: r.outcome === 'skipped' ? r.error : null,
        })
        .where(and(eq(campaignRecipients.organizationId, orgId), eq(campaignRecipients.id, r.id)));
  }
}

/** What is left to do: pending (and when the next is due), in flight. */
export async function remaining(tx: Tx, orgId: number, campaignId: number) {
  const [row] = await queryRows<{ pending: number; sending: number; next_due_ms: number | null }>(
    tx,
    sql`select count(*) filter (where status = 'pending')::int as pending,
               count(*) filter (where status = 'sending')::int as sending,
               extract(epoch from (min(next_attempt_at) filter (where status = 'pending') - now())) * 1000 as next_due_ms
        from campaign_recipients where organization_id = ${orgId} and campaign_id = ${campaignId}
          and status in ('pending', 'sending')`,
  );
  return {
    pending: row.pending,
    sending: row.sending,
    nextDueMs: row.next_due_ms === null ? null : Number(row.next_due_ms),
  };
}

/**
 * Claimed rows whose recipient is not free yet (WhatsApp's per-recipient pace): back to pending for when they are,
 * the claim not counted as an attempt (nothing was sent).
 */
export async function deferRecipients(tx: Tx, orgId: number, rows: { id: number; inMs: number }[]) {
  for (const r of [...rows].sort((a, b) => a.id - b.id))
    await tx.execute(
      sql`update campaign_recipients set status = 'pending', attempts = greatest(attempts - 1, 0), claimed_at = null,
            next_attempt_at = now() + make_interval(secs => ${Math.max(0, r.inMs) / 1000}::float8)
          where organization_id = ${orgId} and id = ${r.id} and status = 'sending'`,
    );
}

export async function skipPending(tx: Tx, orgId: number, campaignId: number, reason: string) {
  await tx
    .update(campaignRecipients)
    .set({ status: 'skipped', skipReason: reason })
    .where(
      and(
        eq(campaignRecipients.organizationId, orgId),
        eq(campaignRecipients.campaignId, campaignId),
        eq(campaignRecipients.status, 'pending'),
      ),
    );
}

// ---- recipients list

export async function listRecipients(tx: Tx, orgId: number, campaignId: number, q: CompiledList) {
  const where = sql`campaign_recipients.organization_id = ${orgId} and campaign_recipients.campaign_id = ${campaignId} and ${q.where}`;
  const rows = await queryRows<any>(
    tx,
    sql`select campaign_recipients.*, c.document_id as contact_document_id, c.name as contact_name
        from campaign_recipients
        left join contacts c on c.organization_id = campaign_recipients.organization_id and c.id = campaign_recipients.contact_id
        where ${where} order by ${q.orderBy} offset ${q.offset} limit ${q.pageSize}`,
  );
  const total = await countIf(q, () => tx.select({ total: count() }).from(campaignRecipients).where(where));
  return { rows, total };
}

// ---- suppressions

export type SuppressionRow = typeof suppressions.$inferSelect;

export async function addSuppression(
  tx: Tx,
  orgId: number,
  address: string,
  reason: SuppressionRow['reason'],
  campaignId: number | null,
) {
  const [row] = await tx
    .insert(suppressions)
    .values({ organizationId: orgId, documentId: newDocumentId(), address, reason, campaignId })
    .onConflictDoNothing()
    .returning();
  return row as SuppressionRow | undefined;
}

export async function findSuppression(tx: Tx, orgId: number, documentId: string) {
  const [row] = await tx
    .select()
    .from(suppressions)
    .where(and(eq(suppressions.organizationId, orgId), eq(suppressions.documentId, documentId)));
  return row as SuppressionRow | undefined;
}

export async function listSuppressions(tx: Tx, orgId: number, q: CompiledList) {
  const where = and(eq(suppressions.organizationId, orgId), q.where);
  const rows = await tx
    .select({ s: suppressions, campaign: campaigns.documentId })
    .from(suppressions)
    .leftJoin(
      campaigns,
      and(
        eq(campaigns.organizationId, suppressions.organizationId),
        eq(campaigns.id, suppressions.campaignId),
      ),
    )
    .where(where)
    .orderBy(q.orderBy)
    .offset(q.offset)
    .limit(q.pageSize);
  const total = await countIf(q, () => tx.select({ total: count() }).from(suppressions).where(where));
  return { rows, total };
}

export async function deleteSuppression(tx: Tx, orgId: number, id: number) {
  await tx.delete(suppressions).where(and(eq(suppressions.organizationId, orgId), eq(suppressions.id, id)));
}

// ---- engagement

export async function recipientById(tx: Tx, orgId: number, id: number) {
  const [row] = await tx
    .select()
    .from(campaignRecipients)
    .where(and(eq(campaignRecipients.organizationId, orgId), eq(campaignRecipients.id, id)));
  return row;
}

export async function recipientsByMessageIds(tx: Tx, orgId: number, channelId: number, messageIds: string[]) {
  if (messageIds.length === 0) return [];
  return tx
    .select({ r: campaignRecipients })
    .from(campaignRecipients)
    .innerJoin(
      campaigns,
      and(
        eq(campaigns.organizationId, campaignRecipients.organizationId),
        eq(campaigns.id, campaignRecipients.campaignId),
      ),
    )
    .where(
      and(
        eq(campaignRecipients.organizationId, orgId),
        eq(campaigns.channelId, channelId),
        inArray(campaignRecipients.providerMessageId, messageIds),
      ),
    )
    .then((rows) => rows.map((x) => x.r));
}

type Mark = 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained';
const markColumn = {
  delivered: 'delivered_at',
  opened: 'opened_at',
  clicked: 'clicked_at',
  bounced: 'bounced_at',
  complained: 'complained_at',
} as const;

/** Records an engagement once (the first time counts); opens and clicks imply delivery, clicks imply an open. */
export async function markRecipient(tx: Tx, orgId: number, id: number, mark: Mark, at: Date) {
  const implied: Mark[] =
    mark === 'clicked'
      ? ['delivered', 'opened', 'clicked']
      : mark === 'opened'
        ? ['delivered', 'opened']
        : [mark];
  const sets = implied.map(
    (m) => sql`${sql.raw(markColumn[m])} = coalesce(${sql.raw(markColumn[m])}, ${at})`,
  );
  await tx.execute(
    sql`update campaign_recipients set ${sql.join(sets, sql`, `)} where organization_id = ${orgId} and id = ${id}`,
  );
}

export async function failRecipient(tx: Tx, orgId: number, id: number, error: string) {
  await tx
    .update(campaignRecipients)
    .set({ status: 'failed', error })
    .where(and(eq(campaignRecipients.organizationId, orgId), eq(campaignRecipients.id, id)));
}

/** Scheduled campaigns whose send time falls in [start, end), for the agenda (DESIGN.md §11, "Agenda"). */
export async function scheduledCampaignsIn(tx: Tx, orgId: number, start: Date, end: Date, limit: number) {
  return tx
    .select({ documentId: campaigns.documentId, name: campaigns.name, scheduledAt: campaigns.scheduledAt })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.organizationId, orgId),
        eq(campaigns.status, 'scheduled'),
        gte(campaigns.scheduledAt, start),
        lt(campaigns.scheduledAt, end),
      ),
    )
    .orderBy(asc(campaigns.scheduledAt))
    .limit(limit);
}
