import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { campaignInput } from '../modules/campaigns/schema.js';
import { createCampaign } from '../modules/campaigns/service.js';
import type { ChannelKit } from '../modules/channels/index.js';
import { findChannel } from '../modules/channels/repo.js';
import { channelInput } from '../modules/channels/schema.js';
import { createChannel } from '../modules/channels/service.js';
import { consentInput } from '../modules/consents/schema.js';
import { recordConsent } from '../modules/consents/service.js';
import { emailTemplateInput } from '../modules/email-templates/schema.js';
import { createTemplate } from '../modules/email-templates/service.js';
import { ingestWhatsApp } from '../modules/inbox/ingest.js';
import { insertMessage } from '../modules/inbox/messages-repo.js';
import { queryRows, type Tx } from '../platform/db/client.js';
import { planFeatures, type TenantContext } from '../platform/tenancy/context.js';

const HOUR = 3_600_000;

/**
 * The demo's messaging history (issue 31 item 5): an e-mail campaign sent twelve days ago to the São Paulo segment,
 * with its engagement (delivered, opened, clicked, a bounce, and the contacts without marketing consent skipped),
 * and a WhatsApp conversation of this morning with messages both ways. The campaign's sends are history: its
 * recipient rows are written as the dispatcher leaves them (like spreadDemoHistory dates the cards), since a demo
 * has no provider to send through. Skipped on a plan without the feature.
 */
export async function seedDemoMessaging(
  ctx: TenantContext,
  tx: Tx,
  kit: ChannelKit,
  contacts: { documentId: string; phone?: string | null }[],
  segmentDocumentId: string,
) {
  const features = planFeatures[ctx.plan];
  if (features.includes('campaigns') && features.includes('email_marketing'))
    await sentCampaign(ctx, tx, kit, contacts, segmentDocumentId);
  if (features.includes('inbox') && contacts[0]?.phone) await conversation(ctx, tx, kit, contacts[0].phone);
}

async function sentCampaign(
  ctx: TenantContext,
  tx: Tx,
  kit: ChannelKit,
  contacts: { documentId: string }[],
  segmentDocumentId: string,
) {
  // Most contacts agreed to the newsletter when they signed up; every fifth did not (the campaign skips them).
  for (const [i, c] of contacts.entries())
    if (i % 5 !== 4)
      await recordConsent(
        ctx,
        c.documentId,
        consentInput.parse({
          channel: 'email',
          purpose: 'marketing',
          status: 'granted',
          source: 'form',
          proof: { text: 'Quero receber novidades e ofertas por e-mail.' },
        }),
      );
  const channel = await createChannel(
    ctx,
    kit,
    channelInput.parse({
      name: 'E-mail da equipe comercial',
      type: 'email',
      settings: { fromName: 'Equipe Comercial', fromAddress: 'comercial@demo.crm.example' },
    }),
  );
  const template = await createTemplate(
    ctx,
    emailTemplateInput.parse({
      name: 'Novidades de novembro',
      subject: 'Novidades para {{contact.name}}',
      html: '<p>Olá, {{contact.name}}!</p><p>Conheça os planos novos e a condição especial para clientes de São Paulo.</p>',
    }),
  );
  const campaign = await createCampaign(
    ctx,
    campaignInput.parse({
      name: 'Novidades de novembro (SP)',
      description: 'Newsletter para os clientes de São Paulo',
      channel: channel.documentId,
      segment: segmentDocumentId,
      template: template.documentId,
    }),
  );
  const [{ id }] = await queryRows<{ id: number }>(
    tx,
    sql`update campaigns set status = 'completed', started_at = now() - interval '12 days',
          completed_at = now() - interval '12 days' + interval '40 minutes'
        where organization_id = ${ctx.orgId} and document_id = ${campaign.documentId} returning id::int as id`,
  );
  // The segment's audience as the dispatcher fixed it (state SP, with an e-mail), and what became of each.
  await tx.execute(sql`
    with audience as (
      select c.id, lower(c.email) as address, row_number() over (order by c.id) as n,
             exists (select 1 from contact_consent_states s where s.organization_id = c.organization_id
                     and s.contact_id = c.id and s.channel = 'email' and s.purpose = 'marketing'
                     and s.status = 'granted') as consented
      from contacts c
      where c.organization_id = ${ctx.orgId} and c.state = 'SP' and c.email is not null
    ), sent as (
      select a.*, now() - interval '12 days' + make_interval(mins => (a.n % 40)::int) as at from audience a
    )
    insert into campaign_recipients (organization_id, campaign_id, contact_id, address, status, skip_reason,
      attempts, provider_message_id, sent_at, delivered_at, opened_at, clicked_at, bounced_at)
    select ${ctx.orgId}, ${id}, s.id, s.address,
      case when not s.consented then 'skipped' else 'sent' end,
      case when not s.consented then 'no_consent' end,
      case when s.consented then 1 else 0 end,
      case when s.consented then 'demo-' || ${randomBytes(6).toString('hex')} || '-' || s.n end,
      case when s.consented then s.at end,
      case when s.consented and s.n % 17 <> 0 then s.at + interval '1 minute' end,
      case when s.consented and s.n % 17 <> 0 and s.n % 9 < 5 then s.at + make_interval(hours => (1 + s.n % 30)::int) end,
      case when s.consented and s.n % 17 <> 0 and s.n % 9 < 2 then s.at + make_interval(hours => (2 + s.n % 30)::int) end,
      case when s.consented and s.n % 17 = 0 then s.at + interval '2 minutes' end
    from sent s`);
}

/** A lead who wrote this morning on WhatsApp, the team's answer, and the lead's reply (the 24-hour window open). */
async function conversation(ctx: TenantContext, tx: Tx, kit: ChannelKit, phone: string) {
  const channel = await createChannel(
    ctx,
    kit,
    channelInput.parse({
      name: 'WhatsApp comercial',
      type: 'whatsapp',
      settings: { phoneNumberId: '100000000000001', businessAccountId: '200000000000001' },
      credentials: {
        accessToken: `demo-${randomBytes(12).toString('hex')}`,
        appSecret: randomBytes(16).toString('hex'),
        verifyToken: randomBytes(16).toString('hex'),
      },
    }),
  );
  const row = (await findChannel(tx, ctx.orgId, channel.documentId))!;
  const waId = `55${phone.replace(/\D/g, '')}`;
  const at = (hoursAgo: number) => String(Math.floor((Date.now() - hoursAgo * HOUR) / 1000));
  const inbound = (id: string, hoursAgo: number, body: string) =>
    ingestWhatsApp(tx, row, [
      {
        contacts: [{ wa_id: waId, profile: { name: 'Cliente' } }],
        messages: [{ from: waId, id, timestamp: at(hoursAgo), type: 'text', text: { body } }],
      },
    ]);
  const tag = randomBytes(6).toString('hex');
  await inbound(`wamid.demo-${tag}-1`, 3, 'Bom dia! Vi a proposta e queria entender o prazo de implantação.');
  const [conv] = await queryRows<{ id: number }>(
    tx,
    sql`select id::int as id from conversations where organization_id = ${ctx.orgId} and wa_id = ${waId}`,
  );
  await insertMessage(tx, ctx.orgId, {
    conversationId: conv.id,
    direction: 'outgoing',
    content: 'Bom dia! A implantação leva de 2 a 3 semanas. Posso agendar uma conversa com o time técnico?',
    contentType: 'text',
    status: 'read',
    senderMembershipId: ctx.membershipId,
    providerMessageId: `wamid.demo-${tag}-2`,
    createdAt: new Date(Date.now() - 2.5 * HOUR),
    updatedAt: new Date(Date.now() - 2.5 * HOUR),
  });
  await inbound(`wamid.demo-${tag}-3`, 2, 'Pode ser amanhã às 10h?');
}
