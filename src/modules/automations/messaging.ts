import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { publicBaseUrl } from '../../config.js';
import { queryRows, type Tx } from '../../platform/db/client.js';
import { secretBox } from '../../platform/secrets/encryption.js';
import { trackingSigner } from '../campaigns/index.js';
import { channelProvider, findChannel, pacedSend } from '../channels/index.js';
import { chatChannels } from '../channels/table.js';
import { marketingBlocks, skipSentence } from '../consents/index.js';
import { findContact } from '../contacts/index.js';
import {
  findTemplate as findEmailTemplate,
  type RenderContext,
  renderEmail,
  renderString,
} from '../email-templates/index.js';
import { findOrganizationById } from '../organizations/index.js';
import { findTemplate as findWaTemplate } from '../templates/index.js';
import { whatsappTemplates } from '../templates/table.js';
import type { ActionEnv, Output } from './action-env.js';
import { pick } from './fan-out.js';

/** A WhatsApp template of a channel by documentId or name. */
export async function findWhatsAppTemplate(tx: Tx, orgId: number, channelId: number, ref: string) {
  return (
    (await findWaTemplate(tx, orgId, channelId, ref)) ??
    (
      await tx
        .select()
        .from(whatsappTemplates)
        .where(
          and(
            eq(whatsappTemplates.organizationId, orgId),
            eq(whatsappTemplates.channelId, channelId),
            eq(whatsappTemplates.name, ref),
          ),
        )
        .limit(1)
    )[0]
  );
}

/** The person a messaging action reaches: the event's contact, or the card's contact. */
async function recipient(env: ActionEnv, tx: Tx) {
  let contactRef = pick(env.event.data, 'contact.documentId');
  if (typeof contactRef !== 'string') {
    const card = pick(env.event.data, 'card.documentId');
    if (typeof card !== 'string') throw new Error('the event names no contact or card');
    const [row] = await queryRows<{ document_id: string | null }>(
      tx,
      sql`select ct.document_id from cards c
          left join contacts ct on ct.organization_id = c.organization_id and ct.id = c.contact_id
          where c.organization_id = ${env.ctx.orgId} and c.document_id = ${card}`,
    );
    contactRef = row?.document_id ?? undefined;
  }
  if (typeof contactRef !== 'string') throw new Error('the card has no contact to write to');
  const contact = await findContact(tx, env.ctx.orgId, contactRef);
  if (!contact) throw new Error('the contact no longer exists');
  const org = await findOrganizationById(tx, env.ctx.orgId);
  const render: RenderContext = {
    contact: {
      name: contact.name,
      email: contact.email,
      phone: contact.phone,
      customFields: contact.customFields ?? {},
    },
    organization: { name: org?.name ?? '' },
    unsubscribeUrl: '',
    variables: {},
  };
  return { contact, render };
}

async function suppressed(tx: Tx, orgId: number, address: string) {
  const [row] = await queryRows<{ reason: string }>(
    tx,
    // As itself, or as the keyed hash an erasure left of it (docs/lgpd.md, "Erasure").
    sql`select reason from suppressions where organization_id = ${orgId}
          and address in (${address.toLowerCase()}, public.crm_address_hash(${address.toLowerCase()}))`,
  );
  return row?.reason;
}

/**
 * send_email: the template rendered for the contact, through the organization's first e-mail channel, with an
 * unsubscribe link (`{{unsubscribeUrl}}`, appended to the text part) and the `List-Unsubscribe` /
 * `List-Unsubscribe-Post` headers (RFC 8058) like campaign mail; the link puts the contact's address on the
 * suppression list. An address on that list (unsubscribed, bounced, complained, added by hand) is not written to:
 * the action is skipped, its result says so, and the run goes on. The runner records "sending" before the call
 * (at most once).
 */
export async function sendEmail(
  env: ActionEnv,
  params: { template: string; purpose?: 'marketing' | 'transactional' },
): Promise<Output> {
  // Before the transaction: the signer's key may be read (made once) outside it.
  const signer = await trackingSigner(env.db);
  const prepared = await env.db.tenantTransaction(env.ctx.orgId, async (tx) => {
    const { contact, render } = await recipient(env, tx);
    if (!contact.email) throw new Error('the contact has no e-mail address');
    const reason = await suppressed(tx, env.ctx.orgId, contact.email);
    if (reason) return { skipped: reason, to: contact.email } as const;
    const noConsent = await consentBlock(tx, env.ctx.orgId, contact.id, 'email', params.purpose);
    if (noConsent) return { skipped: noConsent, to: contact.email, sentence: noConsent } as const;
    const tpl = await findEmailTemplate(tx, env.ctx.orgId, params.template);
    if (!tpl) throw new Error(`the e-mail template ${params.template} no longer exists`);
    const [channel] = await tx
      .select()
      .from(chatChannels)
      .where(and(eq(chatChannels.organizationId, env.ctx.orgId), eq(chatChannels.type, 'email')))
      .orderBy(asc(chatChannels.id))
      .limit(1);
    if (!channel) throw new Error('the organization has no e-mail channel: create one (POST /chat-channels)');
    const token = signer.sign('unsubscribe_contact', env.ctx.orgId, contact.id);
    const unsubscribeUrl = `${publicBaseUrl(env.config)}/api/unsubscribe/${token}`;
    return {
      to: contact.email,
      message: renderEmail(tpl, { ...render, unsubscribeUrl }),
      unsubscribeUrl,
      channel,
    };
  });
  if (prepared.skipped !== undefined) return skippedOutput(prepared);
  const box = await secretBox(env.config, env.db);
  const p = channelProvider({ config: env.config, box }, prepared.channel);
  if (p.type !== 'email') throw new Error('not an e-mail channel');
  await env.reserve();
  const messageId = `<a.${randomUUID()}@crm.localhost>`;
  await p.client.send({
    from: `"${p.settings.fromName.replace(/["\\\r\n]/g, '')}" <${p.settings.fromAddress}>`,
    to: prepared.to,
    replyTo: p.settings.replyTo,
    subject: prepared.message.subject,
    html: prepared.message.html,
    text: `${prepared.message.text}\n\nUnsubscribe: ${prepared.unsubscribeUrl}`,
    messageId,
    headers: {
      'List-Unsubscribe': `<${prepared.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  });
  return { to: prepared.to, messageId };
}

/** A suppressed recipient, or one without marketing consent: the action is skipped and says why; the run goes on. */
function skippedOutput(p: { skipped: string; to: string; sentence?: string }): Output {
  return {
    skipped: true,
    to: p.to,
    reason: p.sentence ?? `${p.to} is on the suppression list (${p.skipped}): not sent`,
  };
}

/**
 * Automation sends are marketing unless the action says `purpose: transactional` (docs/lgpd.md, "Consent"): the
 * sentence saying why the contact may not be written to, or undefined.
 */
async function consentBlock(
  tx: Tx,
  orgId: number,
  contactId: number,
  channel: 'email' | 'whatsapp',
  purpose: 'marketing' | 'transactional' | undefined,
) {
  if (purpose === 'transactional') return undefined;
  const reason = (await marketingBlocks(tx, orgId, [contactId], channel)).get(contactId);
  return reason ? skipSentence(reason, channel) : undefined;
}

/**
 * send_template_message: an approved WhatsApp template to the contact's phone, body parameters rendered; a phone
 * on the suppression list is skipped like an e-mail address in send_email.
 */
export async function sendTemplateMessage(
  env: ActionEnv,
  params: {
    channel: string;
    template: string;
    params?: string[];
    purpose?: 'marketing' | 'transactional';
  },
): Promise<Output> {
  const prepared = await env.db.tenantTransaction(env.ctx.orgId, async (tx) => {
    const { contact, render } = await recipient(env, tx);
    if (!contact.phone) throw new Error('the contact has no phone number');
    const reason = await suppressed(tx, env.ctx.orgId, contact.phone);
    if (reason) return { skipped: reason, to: contact.phone } as const;
    const noConsent = await consentBlock(tx, env.ctx.orgId, contact.id, 'whatsapp', params.purpose);
    if (noConsent) return { skipped: noConsent, to: contact.phone, sentence: noConsent } as const;
    const channel = await findChannel(tx, env.ctx.orgId, params.channel);
    if (channel?.type !== 'whatsapp') throw new Error(`no WhatsApp channel ${params.channel}`);
    const tpl = await findWhatsAppTemplate(tx, env.ctx.orgId, channel.id, params.template);
    if (!tpl) throw new Error(`no template ${params.template} on the channel`);
    if (tpl.status !== 'APPROVED') throw new Error(`the template ${tpl.name} is ${tpl.status}, not APPROVED`);
    const texts = (params.params ?? []).map((p) => renderString(p, render, false));
    return { to: contact.phone.replace(/^\+/, ''), channel, tpl, texts };
  });
  if (prepared.skipped !== undefined) return skippedOutput(prepared);
  const box = await secretBox(env.config, env.db);
  const p = channelProvider({ config: env.config, box }, prepared.channel);
  if (p.type !== 'whatsapp') throw new Error('not a WhatsApp channel');
  const template = {
    name: prepared.tpl.name,
    language: prepared.tpl.language,
    components: prepared.texts.length
      ? [{ type: 'body', parameters: prepared.texts.map((text) => ({ type: 'text', text })) }]
      : [],
  };
  // At WhatsApp's pace (docs/messaging.md, "WhatsApp limits"): the slot is waited for before "sending" is recorded;
  // a throughput or pair-rate refusal sent nothing and is tried again.
  let reserved = false;
  const paced = {
    transaction: <T>(fn: (tx: Tx) => Promise<T>) => env.db.tenantTransaction(env.ctx.orgId, fn),
    orgId: env.ctx.orgId,
    channel: prepared.channel,
    to: prepared.to,
    config: env.config,
  };
  const res = await pacedSend(paced, async () => {
    if (!reserved) await env.reserve();
    reserved = true;
    return p.client.sendTemplate(prepared.to, template);
  });
  return { to: prepared.to, messageId: res.messageId };
}
