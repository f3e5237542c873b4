import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import { iso } from '../../platform/http/schemas.js';
import { ProviderError, toBadGateway } from '../../platform/providers/provider-error.js';
import { whatsappLimit } from '../../platform/providers/whatsapp/errors.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import { type ChannelKit, channelProvider, findChannelById, pacedSend } from '../channels/index.js';
import { marketingWithdrawn } from '../consents/index.js';
import { findContact } from '../contacts/index.js';
import { whatsappTemplates } from '../templates/table.js';
import { cardForConversation } from './ingest.js';
import * as messagesRepo from './messages-repo.js';
import { notifyLive } from './notify.js';
import * as repo from './repo.js';
import type { AttachmentInput, OutgoingMessage, StartConversationInput, TemplateParams } from './schema.js';
import {
  canSee,
  findInboxOr404,
  loadConversation,
  presentConversation,
  presentMessages,
  requireInbox,
  windowExpiresAt,
} from './service.js';

/**
 * Sending (docs/inbox.md, "Sending"). A message is written `queued` and committed before the provider is
 * called, then settled (`sent` with the provider id, or `failed`): the row is the send ledger, so no path
 * calls the provider twice for one message: a crash in between leaves it queued, never re-sent; a retried
 * request with the same Idempotency-Key replays the stored answer.
 */

export const MAX_ATTACHMENT_BYTES = 50 * 1024 * 1024;

/** The media WhatsApp Cloud API accepts, by kind, with its own size limits (at most our 50 MB). */
export const MEDIA: Record<'image' | 'audio' | 'video' | 'document', { types: string[]; maxBytes: number }> =
  {
    image: { types: ['image/jpeg', 'image/png'], maxBytes: 5 * 1024 * 1024 },
    audio: {
      types: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
      maxBytes: 16 * 1024 * 1024,
    },
    video: { types: ['video/mp4', 'video/3gpp'], maxBytes: 16 * 1024 * 1024 },
    document: {
      types: [
        'application/pdf',
        'text/plain',
        'application/msword',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.ms-excel',
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        'application/vnd.ms-powerpoint',
        'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      ],
      maxBytes: MAX_ATTACHMENT_BYTES,
    },
  };
export const SUPPORTED_TYPES = Object.values(MEDIA).flatMap((m) => m.types);

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

function attachmentError(message: string, path: string, extra: Record<string, unknown> = {}) {
  return new AppError('ValidationError', message, {
    errors: [{ path: [path], message, name: 'ValidationError' }],
    ...extra,
  });
}

/** Checks type and size before decoding anything large; the decoded bytes and their WhatsApp kind. */
export function decodeAttachment(input: AttachmentInput) {
  const mime = input.mimeType.toLowerCase().split(';')[0].trim();
  const kind = (Object.keys(MEDIA) as (keyof typeof MEDIA)[]).find((k) => MEDIA[k].types.includes(mime));
  if (!kind)
    throw attachmentError(
      `The WhatsApp channel does not support ${mime}; supported types: ${SUPPORTED_TYPES.join(', ')}`,
      'mimeType',
      { supportedTypes: SUPPORTED_TYPES },
    );
  const b64 = input.base64.replace(/^data:[^,]*,/, '').replace(/\s+/g, '');
  const approx = Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
  const limit = MEDIA[kind].maxBytes;
  if (approx > MAX_ATTACHMENT_BYTES)
    throw attachmentError(`The file is ${mb(approx)}: attachments are at most 50 MB`, 'base64', {
      maxBytes: MAX_ATTACHMENT_BYTES,
    });
  if (approx > limit)
    throw attachmentError(
      `WhatsApp accepts ${kind} files of at most ${mb(limit)}; this one is ${mb(approx)}`,
      'base64',
      {
        maxBytes: limit,
      },
    );
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0)
    throw attachmentError('base64 is not valid base64 (A-Z, a-z, 0-9, +, / and = padding)', 'base64');
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length === 0) throw attachmentError('The file is empty', 'base64');
  return { kind, mime, bytes };
}

function windowClosed(conv: repo.ConversationRow) {
  const expires = windowExpiresAt(conv);
  return new AppError(
    'UnprocessableEntityError',
    expires
      ? `The 24-hour window for free text closed at ${expires.toISOString()} (24 hours after the contact's last message): send a template message instead, with message.template_params { name, category, language, processed_params }`
      : 'The contact has not written yet, so the 24-hour window for free text is not open: start with a template message, with message.template_params { name, category, language, processed_params }',
    {
      window: { lastIncomingAt: iso(conv.lastIncomingAt), expiresAt: iso(expires), hours: 24 },
      alternative: 'template',
      hint: 'message: { content, template_params: { name, category, language, processed_params } }',
    },
  );
}

const windowOpen = (conv: repo.ConversationRow) => {
  const expires = windowExpiresAt(conv);
  return expires !== null && expires.getTime() > Date.now();
};

function templateComponents(t: TemplateParams) {
  const p = t.processed_params;
  if (!p) return [];
  const values = Array.isArray(p)
    ? p
    : Object.entries(p)
        .sort(([a], [b]) => Number(a) - Number(b) || a.localeCompare(b))
        .map(([, v]) => v);
  return values.length ? [{ type: 'body', parameters: values.map((text) => ({ type: 'text', text })) }] : [];
}

/**
 * A template the channel knows (synced) must be APPROVED; one it does not know is left to the provider. Answers
 * the template's category: the synced one when known (the provider's word), else the one the request names.
 */
async function checkTemplate(tx: Tx, orgId: number, channelId: number, t: TemplateParams) {
  const [known] = await tx
    .select({ status: whatsappTemplates.status, category: whatsappTemplates.category })
    .from(whatsappTemplates)
    .where(
      and(
        eq(whatsappTemplates.organizationId, orgId),
        eq(whatsappTemplates.channelId, channelId),
        eq(whatsappTemplates.name, t.name),
        eq(whatsappTemplates.language, t.language),
      ),
    );
  if (known && known.status !== 'APPROVED')
    throw new AppError(
      'UnprocessableEntityError',
      `The template ${t.name} (${t.language}) is ${known.status}: only APPROVED templates can be sent`,
      {
        template: { name: t.name, language: t.language, status: known.status },
      },
    );
  return (known?.category ?? t.category ?? '').toUpperCase();
}

/**
 * A MARKETING template is not sent to a contact who withdrew WhatsApp marketing consent (the stop keyword, an
 * unsubscribe, a recorded withdrawal): an opt-out holds for people's sends too. Other templates, and replies
 * inside the 24-hour window, are conversation, not marketing (docs/lgpd.md, "Sends").
 */
async function checkMarketingOptOut(tx: Tx, orgId: number, contactId: number | null, category: string) {
  if (category !== 'MARKETING' || contactId === null) return;
  if (!(await marketingWithdrawn(tx, orgId, contactId, 'whatsapp'))) return;
  throw new AppError(
    'UnprocessableEntityError',
    'The contact withdrew WhatsApp marketing consent: a MARKETING template is not sent to them. Send a UTILITY template, or reply inside the 24-hour window after they write',
    { consent: { channel: 'whatsapp', purpose: 'marketing', status: 'withdrawn' } },
  );
}

type Outgoing =
  | { kind: 'message'; message: OutgoingMessage }
  | { kind: 'attachment'; file: ReturnType<typeof decodeAttachment>; input: AttachmentInput };

async function channelOf(tx: Tx, orgId: number, inboxId: number) {
  const inbox = await findInboxOr404(tx, orgId, inboxId);
  const channel = await findChannelById(tx, orgId, inbox.channel.id);
  if (!channel) throw notFound('Inbox');
  return channel;
}

/** The queued ledger row of an outgoing message, in the caller's transaction (rules checked first). */
async function queueMessage(tx: Tx, ctx: TenantContext, conversationId: number, out: Outgoing) {
  const conv = await loadConversation(tx, ctx, conversationId, true);
  const channel = await channelOf(tx, ctx.orgId, conv.inboxId);
  const template = out.kind === 'message' ? out.message.template_params : undefined;
  if (!template && !windowOpen(conv)) throw windowClosed(conv);
  if (template)
    await checkMarketingOptOut(
      tx,
      ctx.orgId,
      conv.contactId,
      await checkTemplate(tx, ctx.orgId, channel.id, template),
    );
  const row = await messagesRepo.insertMessage(tx, ctx.orgId, {
    conversationId: conv.id,
    direction: 'outgoing',
    content:
      out.kind === 'message'
        ? out.message.content || (template ? `[template ${template.name}]` : '')
        : (out.input.caption ?? ''),
    contentType: out.kind === 'attachment' ? out.file.kind : template ? 'template' : 'text',
    attachments:
      out.kind === 'attachment'
        ? [
            {
              mediaId: null,
              filename: out.input.filename,
              mimeType: out.file.mime,
              size: out.file.bytes.length,
              caption: out.input.caption ?? null,
            },
          ]
        : [],
    template: template ? { ...template } : null,
    status: 'queued',
    senderMembershipId: ctx.membershipId,
  });
  return { row: row!, conv, channel };
}

/** The channel's WhatsApp client: 422 for a channel without credentials or of another type. */
function whatsappOf(kit: ChannelKit, channel: Parameters<typeof channelProvider>[1]) {
  const p = channelProvider(kit, channel);
  if (p.type !== 'whatsapp')
    throw new AppError('UnprocessableEntityError', 'The inbox channel is not WhatsApp');
  return p;
}

/**
 * A dry run (docs/dry-run.md) stops before the provider: the answer is the message as it would be handed to
 * it (status `queued`), after the same checks, in the one transaction that is then rolled back.
 */
async function dryRunMessage(
  tx: Tx,
  ctx: TenantContext,
  kit: ChannelKit,
  conversationId: number,
  out: Outgoing,
) {
  const queued = await queueMessage(tx, ctx, conversationId, out);
  whatsappOf(kit, queued.channel);
  return (await presentMessages(tx, ctx.orgId, [queued.row]))[0];
}

async function send(ctx: TenantContext, kit: ChannelKit, conversationId: number, out: Outgoing) {
  requireInbox(ctx, true);
  if (ctx.dryRun) return ctx.transaction((tx) => dryRunMessage(tx, ctx, kit, conversationId, out));
  // 1. The ledger row, committed before anything reaches the provider.
  const queued = await ctx.transaction((tx) => queueMessage(tx, ctx, conversationId, out));
  // 2. The provider, once (at WhatsApp's pace: a refusal for throughput or pair rate sent nothing and is retried).
  let providerId: string | null = null;
  let mediaId: string | null = null;
  let failure: ProviderError | null = null;
  try {
    const p = whatsappOf(kit, queued.channel);
    const to = queued.conv.waId;
    const paced = {
      transaction: ctx.transaction,
      orgId: ctx.orgId,
      channel: queued.channel,
      to,
      config: kit.config,
    };
    if (out.kind === 'attachment') {
      mediaId = await p.client.uploadMedia({
        filename: out.input.filename,
        mimeType: out.file.mime,
        bytes: out.file.bytes,
      });
      const media = { id: mediaId, caption: out.input.caption, filename: out.input.filename };
      providerId = (await pacedSend(paced, () => p.client.sendMedia(to, out.file.kind, media))).messageId;
    } else if (out.message.template_params) {
      const t = out.message.template_params;
      const template = { name: t.name, language: t.language, components: templateComponents(t) };
      providerId = (await pacedSend(paced, () => p.client.sendTemplate(to, template))).messageId;
    } else {
      const text = out.message.content;
      providerId = (await pacedSend(paced, () => p.client.sendText(to, text))).messageId;
    }
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    failure = err;
  }
  // 3. Settle the row and announce it.
  const message = await ctx.transaction(async (tx) => {
    const row = await messagesRepo.updateMessage(tx, ctx.orgId, queued.row.id, {
      status: failure ? 'failed' : 'sent',
      error: failure ? `${failure.provider} provider: ${failure.message}` : null,
      providerMessageId: providerId,
      ...(mediaId ? { attachments: queued.row.attachments.map((a) => ({ ...a, mediaId })) } : {}),
    });
    const [conv] = await repo.conversationsByIds(tx, ctx.orgId, [conversationId]);
    if (!failure)
      await repo.updateConversation(tx, ctx.orgId, conversationId, {
        lastMessageAt: row.createdAt,
        lastMessagePreview: (row.content || `[${row.contentType}]`).slice(0, 200),
      });
    await notifyLive(tx, {
      orgId: ctx.orgId,
      type: 'message.created',
      conversationId,
      messageId: row.id,
      assignee: conv?.assigneeMembershipId ?? null,
    });
    return (await presentMessages(tx, ctx.orgId, [row]))[0];
  });
  if (failure) providerRefused(failure, queued.conv);
  return message;
}

/**
 * The provider's refusal, once the message is recorded failed: WhatsApp's "outside the 24-hour window" (131047) is
 * the window rule's 422 with the template alternative (the provider saw a closed window); anything else a 502.
 */
function providerRefused(failure: ProviderError, conv: repo.ConversationRow): never {
  if (whatsappLimit(failure) !== 'window_closed') return toBadGateway(failure);
  const closed = windowClosed(conv);
  throw new AppError(
    'UnprocessableEntityError',
    `WhatsApp refused free text outside the 24-hour window (${failure.code}): send a template message instead, with message.template_params { name, category, language, processed_params }`,
    {
      ...closed.details,
      provider: failure.provider,
      providerCode: failure.code,
      providerMessage: failure.message,
    },
  );
}

export const sendMessage = (ctx: TenantContext, kit: ChannelKit, id: number, message: OutgoingMessage) =>
  send(ctx, kit, id, { kind: 'message', message });

export function sendAttachment(ctx: TenantContext, kit: ChannelKit, id: number, input: AttachmentInput) {
  requireInbox(ctx, true);
  return send(ctx, kit, id, { kind: 'attachment', file: decodeAttachment(input), input });
}

/** The conversation of (inbox, contact), made when missing (with its card, like an inbound one). */
async function conversationWith(tx: Tx, ctx: TenantContext, inboxId: number, contactDocumentId: string) {
  const inbox = await findInboxOr404(tx, ctx.orgId, inboxId);
  const contact = await findContact(tx, ctx.orgId, contactDocumentId);
  if (!contact) throw notFound('Contact');
  if (!contact.phone)
    throw new AppError(
      'UnprocessableEntityError',
      'The contact has no phone number: set one to reach them on WhatsApp',
      {
        contact: contact.documentId,
      },
    );
  const waId = contact.phone.replace(/\D/g, '');
  const made = await repo.insertConversation(tx, ctx.orgId, { inboxId, waId, contactId: contact.id });
  if (!made) {
    const existing = await repo.conversationByWaId(tx, ctx.orgId, inboxId, waId);
    return { row: existing, created: false };
  }
  const cardId = await cardForConversation(tx, ctx.orgId, inbox.channel.id, contact, waId);
  const row = cardId ? await repo.updateConversation(tx, ctx.orgId, made.id, { cardId }) : made;
  await recordEvent(tx, ctx.orgId, 'conversation.created', `conversation:${row.id}`, {
    conversation: { id: row.id, inboxId, waId, contact: contact.documentId },
  });
  await notifyLive(tx, {
    orgId: ctx.orgId,
    type: 'conversation.updated',
    conversationId: row.id,
    assignee: null,
  });
  return { row, created: true };
}

/** POST /conversations: a conversation with a contact, opened by a first message (a template outside the window). */
export async function startConversation(ctx: TenantContext, kit: ChannelKit, input: StartConversationInput) {
  requireInbox(ctx, true);
  if (ctx.dryRun) {
    // One transaction, rolled back: the conversation a real call opens must exist for its first message.
    return ctx.transaction(async (tx) => {
      const { row } = await conversationWith(tx, ctx, input.inboxId, input.contact);
      const message = await dryRunMessage(tx, ctx, kit, row.id, { kind: 'message', message: input.message });
      const conversation = await presentConversation(tx, ctx.orgId, await loadConversation(tx, ctx, row.id));
      return { conversation, message };
    });
  }
  // The contact asked for is checked before a conversation (and its card and event) is made: an existing
  // conversation of the number may name no contact, or another one.
  const template = input.message.template_params;
  if (template)
    await ctx.transaction(async (tx) => {
      const contact = await findContact(tx, ctx.orgId, input.contact);
      const channel = await channelOf(tx, ctx.orgId, input.inboxId);
      if (contact)
        await checkMarketingOptOut(
          tx,
          ctx.orgId,
          contact.id,
          await checkTemplate(tx, ctx.orgId, channel.id, template),
        );
    });
  const { row } = await ctx.transaction((tx) => conversationWith(tx, ctx, input.inboxId, input.contact));
  const message = await sendMessage(ctx, kit, row.id, input.message);
  const conversation = await ctx.transaction(async (tx) =>
    presentConversation(tx, ctx.orgId, await loadConversation(tx, ctx, row.id)),
  );
  return { conversation, message };
}

/** POST /contacts/{id}/chat-sync: makes sure the contact has a conversation in the inbox (nothing is sent). */
export async function syncContactToChat(ctx: TenantContext, contactDocumentId: string, inboxId: number) {
  requireInbox(ctx, true);
  return ctx.transaction(async (tx) => {
    const { row, created } = await conversationWith(tx, ctx, inboxId, contactDocumentId);
    // An existing conversation assigned to someone else stays out of sight (like GET /conversations/{id}).
    if (!canSee(ctx, row.assigneeMembershipId)) throw notFound('Conversation');
    return { created, conversation: await presentConversation(tx, ctx.orgId, row) };
  });
}

/** GET /conversations/{id}/messages/{messageId}/media: the message's media, fetched through the provider. */
export async function downloadAttachment(ctx: TenantContext, kit: ChannelKit, id: number, messageId: number) {
  requireInbox(ctx);
  const { channel, attachment } = await ctx.transaction(async (tx) => {
    const conv = await loadConversation(tx, ctx, id);
    const msg = await messagesRepo.findMessage(tx, ctx.orgId, messageId);
    if (!msg || msg.conversationId !== conv.id) throw notFound('Message');
    const a = msg.attachments[0];
    if (!a?.mediaId) throw new AppError('NotFoundError', 'This message has no media');
    return { channel: await channelOf(tx, ctx.orgId, conv.inboxId), attachment: a };
  });
  const p = channelProvider(kit, channel);
  if (p.type !== 'whatsapp')
    throw new AppError('UnprocessableEntityError', 'The inbox channel is not WhatsApp');
  try {
    const file = await p.client.downloadMedia(attachment.mediaId!, 100 * 1024 * 1024);
    return { ...file, filename: attachment.filename };
  } catch (err) {
    return toBadGateway(err);
  }
}
