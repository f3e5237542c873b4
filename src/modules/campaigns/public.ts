import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Plan } from '../../config.js';
import type { Database, Tx } from '../../platform/db/client.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import type { Jobs } from '../../platform/jobs/jobs.js';
import { webhookErrorText } from '../../platform/providers/whatsapp/errors.js';
import { planFeatures } from '../../platform/tenancy/context.js';
import { type ChannelKit, openCredentials } from '../channels/index.js';
import { chatChannels } from '../channels/table.js';
import { withdrawByStopKeywords, withdrawMarketingOnce } from '../consents/index.js';
import { contacts } from '../contacts/table.js';
import { ingestWhatsApp, type WaValue } from '../inbox/index.js';
import { chatInboxes } from '../inbox/table.js';
import { organizations } from '../organizations/table.js';
import * as repo from './repo.js';
import type { EmailEvent } from './schema.js';
import { trackingSigner } from './tracking.js';

/**
 * The public, unauthenticated side of campaigns: tracking pixel, click redirect, one-click unsubscribe and the
 * signed provider webhooks. Each finds its organization from a signed token or a channel, then works inside
 * that organization's RLS transaction.
 */

export async function trackOpen(db: Database, token: string) {
  const t = (await trackingSigner(db)).verify('open', token);
  if (!t) return false;
  await db.tenantTransaction(t.orgId, async (tx) => {
    const r = await repo.recipientById(tx, t.orgId, t.recipientId);
    if (r?.status === 'sent') await repo.markRecipient(tx, t.orgId, r.id, 'opened', new Date());
  });
  return true;
}

/** The target of a signed click; null when the token does not sign this URL (never an open redirect). */
export async function trackClick(db: Database, token: string, url: string) {
  const t = (await trackingSigner(db)).verify('click', token, url);
  if (!t || !/^https?:\/\//i.test(url)) return null;
  await db.tenantTransaction(t.orgId, async (tx) => {
    const r = await repo.recipientById(tx, t.orgId, t.recipientId);
    if (r?.status === 'sent') await repo.markRecipient(tx, t.orgId, r.id, 'clicked', new Date());
  });
  return url;
}

/** Whether the unsubscribe token is valid (the GET page shows a confirmation button, the POST acts). */
export async function checkUnsubscribe(db: Database, token: string) {
  const signer = await trackingSigner(db);
  return signer.verify('unsubscribe', token) !== null || signer.verify('unsubscribe_contact', token) !== null;
}

/**
 * RFC 8058 one-click: the address joins the organization's suppression list (idempotent). A campaign's token
 * suppresses the address the campaign wrote to; an automation mail's token (`unsubscribe_contact`) the contact's
 * e-mail address (a deleted contact or one without an address: nothing to do, the link still answers).
 */
export async function unsubscribe(db: Database, token: string) {
  const signer = await trackingSigner(db);
  const t = signer.verify('unsubscribe', token);
  if (t) {
    await db.tenantTransaction(t.orgId, async (tx) => {
      const r = await repo.recipientById(tx, t.orgId, t.recipientId);
      if (!r) return;
      await repo.addSuppression(tx, t.orgId, r.address, 'unsubscribed', r.campaignId);
      const campaign = await repo.campaignById(tx, t.orgId, r.campaignId);
      await withdrawEmailMarketing(tx, t.orgId, r.address, { campaign: campaign?.documentId ?? null });
    });
    return true;
  }
  const c = signer.verify('unsubscribe_contact', token);
  if (!c) return false;
  await db.tenantTransaction(c.orgId, async (tx) => {
    const [contact] = await tx
      .select({ email: contacts.email })
      .from(contacts)
      .where(and(eq(contacts.organizationId, c.orgId), eq(contacts.id, c.recipientId)));
    if (!contact?.email) return;
    await repo.addSuppression(tx, c.orgId, contact.email.toLowerCase(), 'unsubscribed', null);
    await withdrawEmailMarketing(tx, c.orgId, contact.email.toLowerCase(), { automation: true });
  });
  return true;
}

/**
 * The one-click unsubscribe also withdraws e-mail marketing consent (docs/lgpd.md, "Consent") of every contact with
 * the address; a repeated click records nothing new.
 */
async function withdrawEmailMarketing(
  tx: Tx,
  orgId: number,
  address: string,
  proof: Record<string, unknown>,
) {
  const ids = await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(and(eq(contacts.organizationId, orgId), sql`lower(${contacts.email}) = ${address}`));
  await withdrawMarketingOnce(
    tx,
    orgId,
    ids.map((x) => x.id),
    'email',
    'unsubscribe',
    { ...proof, via: 'List-Unsubscribe one-click' },
  );
}

/**
 * The channel a webhook names, with its organization's plan and its inbox (if made yet): one statement on the connection's own role, since
 * the organization is not known before the channel is found (every later statement runs in its RLS transaction).
 */
async function channelForWebhook(db: Database, documentId: string, type: 'email' | 'whatsapp') {
  const [row] = await db.system
    .select({ channel: chatChannels, plan: organizations.plan, inboxId: chatInboxes.id })
    .from(chatChannels)
    .innerJoin(organizations, eq(organizations.id, chatChannels.organizationId))
    .leftJoin(
      chatInboxes,
      and(
        eq(chatInboxes.organizationId, chatChannels.organizationId),
        eq(chatInboxes.channelId, chatChannels.id),
      ),
    )
    .where(eq(chatChannels.documentId, documentId))
    .limit(1);
  if (!row || row.channel.type !== type) throw notFound('Channel');
  return { ...row.channel, plan: row.plan, inboxId: row.inboxId };
}

function checkSignature(secret: string | undefined, raw: Buffer, header: string | undefined) {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header ?? '')?.[1];
  const expected = secret ? createHmac('sha256', secret).update(raw).digest('hex') : undefined;
  if (
    !given ||
    !expected ||
    !timingSafeEqual(Buffer.from(given.toLowerCase(), 'hex'), Buffer.from(expected, 'hex'))
  )
    throw new AppError('UnauthorizedError', 'Invalid or missing signature');
}

const bareId = (id: string) => id.trim().replace(/^<|>$/g, '');

/** POST /webhooks/email-events/{channelId}: HMAC-SHA256 of the raw body with the channel's webhook secret. */
export async function emailEvents(
  db: Database,
  kit: ChannelKit,
  channelId: string,
  raw: Buffer,
  signature: string | undefined,
  events: EmailEvent[],
) {
  const channel = await channelForWebhook(db, channelId, 'email');
  const creds = openCredentials<{ webhookSecret?: string }>(kit, channel);
  checkSignature(creds?.webhookSecret, raw, signature);
  const orgId = channel.organizationId;
  return db.tenantTransaction(orgId, async (tx) => {
    const ids = [...new Set(events.flatMap((e) => [bareId(e.messageId), `<${bareId(e.messageId)}>`]))];
    const recipients = await repo.recipientsByMessageIds(tx, orgId, channel.id, ids);
    const byId = new Map(recipients.map((r) => [bareId(r.providerMessageId ?? ''), r]));
    let matched = 0;
    for (const e of events) {
      const r = byId.get(bareId(e.messageId));
      if (!r) continue;
      matched++;
      const at =
        e.timestamp === undefined
          ? new Date()
          : new Date(typeof e.timestamp === 'number' ? e.timestamp * 1000 : e.timestamp);
      const when = Number.isNaN(at.getTime()) ? new Date() : at;
      await repo.markRecipient(tx, orgId, r.id, e.type, when);
      if (e.type === 'complained')
        await repo.addSuppression(tx, orgId, r.address, 'complained', r.campaignId);
      if (e.type === 'bounced' && e.bounceType !== 'soft')
        await repo.addSuppression(tx, orgId, r.address, 'bounced', r.campaignId);
    }
    return { received: events.length, matched };
  });
}

/** GET /webhooks/whatsapp/{channelId}: the hub.challenge handshake with the channel's verify token. */
export async function whatsappHandshake(
  db: Database,
  kit: ChannelKit,
  channelId: string,
  mode: string | undefined,
  token: string | undefined,
  challenge: string | undefined,
) {
  const channel = await channelForWebhook(db, channelId, 'whatsapp');
  const creds = openCredentials<{ verifyToken?: string }>(kit, channel);
  const ok =
    mode === 'subscribe' &&
    token !== undefined &&
    creds?.verifyToken !== undefined &&
    token.length === creds.verifyToken.length &&
    timingSafeEqual(Buffer.from(token), Buffer.from(creds.verifyToken));
  if (!ok || challenge === undefined) throw new AppError('ForbiddenError', 'Verification failed');
  return challenge;
}

interface WhatsAppWebhook {
  entry?: {
    changes?: {
      value?: WaValue & {
        statuses?: {
          id?: string;
          status?: string;
          timestamp?: string;
          errors?: { title?: string; message?: string; code?: number; error_data?: { details?: string } }[];
        }[];
      };
    }[];
  }[];
}

/**
 * POST /webhooks/whatsapp/{channelId}: verified by X-Hub-Signature-256 (the app secret) over the raw body.
 * Status updates of campaign messages count as delivered (delivered), opened (read) or failed (failed);
 * inbound messages and the statuses of conversation messages go to the inbox (inbox/ingest.ts), in the same
 * transaction: the provider gets its 200 only once everything is stored.
 */
export async function whatsappEvents(
  db: Database,
  kit: ChannelKit,
  channelId: string,
  raw: Buffer,
  signature: string | undefined,
  jobs: Jobs,
) {
  const channel = await channelForWebhook(db, channelId, 'whatsapp');
  const creds = openCredentials<{ appSecret?: string }>(kit, channel);
  checkSignature(creds?.appSecret, raw, signature);
  let body: WhatsAppWebhook;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('BadRequestError', 'Malformed JSON in request body');
  }
  const values = (body.entry ?? []).flatMap((e) => (e.changes ?? []).map((c) => c.value ?? {}));
  const statuses = values.flatMap((v) => v.statuses ?? []);
  const messages = values.reduce((n, v) => n + (v.messages?.length ?? 0), 0);
  const orgId = channel.organizationId;
  const inbox = planFeatures[channel.plan as Plan]?.includes('inbox') ?? false;
  return db.tenantTransaction(orgId, async (tx) => {
    const ids = statuses.map((s) => s.id).filter((x): x is string => typeof x === 'string');
    const recipients = await repo.recipientsByMessageIds(tx, orgId, channel.id, ids);
    const byId = new Map(recipients.map((r) => [r.providerMessageId, r]));
    let matched = 0;
    for (const s of statuses) {
      const r = s.id ? byId.get(s.id) : undefined;
      if (!r) continue;
      matched++;
      const at = s.timestamp ? new Date(Number(s.timestamp) * 1000) : new Date();
      const when = Number.isNaN(at.getTime()) ? new Date() : at;
      if (s.status === 'delivered') await repo.markRecipient(tx, orgId, r.id, 'delivered', when);
      else if (s.status === 'read') await repo.markRecipient(tx, orgId, r.id, 'opened', when);
      else if (s.status === 'failed') {
        await repo.failRecipient(tx, orgId, r.id, webhookErrorText(s.errors?.[0]));
      }
    }
    // A stop keyword withdraws WhatsApp marketing consent and is answered once, with or without the inbox.
    await withdrawByStopKeywords(
      tx,
      jobs,
      channel,
      values.flatMap((v) => v.messages ?? []),
    );
    if (!inbox) return { received: statuses.length + messages, matched };
    const ingested = await ingestWhatsApp(tx, channel, values);
    return { received: statuses.length + messages, matched: matched + ingested.matched + ingested.stored };
  });
}
