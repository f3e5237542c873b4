import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Scope } from '../../platform/auth/scopes.js';
import type { AppDeps } from '../../platform/deps.js';
import { dataBody } from '../../platform/http/schemas.js';
import { lazyChannelKit } from '../channels/index.js';
import * as cards from './cards.js';
import { searchChatContacts } from './contacts.js';
import { LiveHub } from './live.js';
import {
  attachmentInput,
  boardParams,
  cardCreateInput,
  cardLinkInput,
  chatCard,
  chatContact,
  chatContactsQuery,
  contactParams,
  conversation,
  conversationCard,
  conversationListQuery,
  conversationsMeta,
  conversationUpdate,
  idParams,
  inbox,
  inboxBoardLink,
  inboxParams,
  message,
  messagePage,
  messagesQuery,
  numericId as numericIdParam,
  pagedConversations,
  sendMessageInput,
  startConversationInput,
  syncContactInput,
  unreadCounts,
} from './schema.js';
import * as send from './send.js';
import * as service from './service.js';

const tags = ['Inbox'];
const read: Scope = 'chat:read';
const write: Scope = 'chat:write';
const beta = (s: string) => `BETA: ${s}`;
const ids = 'Inbox, conversation and message ids are numeric; contact, card and board ids are documentIds.';

export const inboxRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyChannelKit(deps.config, deps.db);
  const hub = new LiveHub(deps.db, app.log);
  // Open event streams end when the app closes (before the server waits for its connections to finish), each
  // with a `retry:` hint.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of streams) end();
  });
  app.addHook('onClose', () => hub.close());

  app.get(
    '/inboxes',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'List chat inboxes',
        description: beta(
          `One inbox per WhatsApp channel, with the boards its conversations become cards on. ${ids}`,
        ),
        response: { 200: z.object({ data: z.array(inbox) }) },
      },
    },
    async (req) => service.listInboxes(req.tenant),
  );

  app.get(
    '/inboxes/:id',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'One chat inbox',
        description: beta('The inbox by its numeric id.'),
        params: inboxParams,
        response: { 200: inbox },
      },
    },
    async (req) => service.getInbox(req.tenant, req.params.id),
  );

  app.get(
    '/inboxes/:id/boards',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Board links of an inbox',
        description: beta(
          "The boards linked to the inbox's channel (PUT /boards/{boardId}/chat-channels sets them); a new conversation becomes a card (creationSource chat_inbound, entry phase) on the first one (createsCards).",
        ),
        params: inboxParams,
        response: { 200: z.object({ data: z.array(inboxBoardLink) }) },
      },
    },
    async (req) => service.inboxBoardLinks(req.tenant, req.params.id),
  );

  app.get(
    '/conversations',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'List conversations',
        description: beta(
          `Newest activity first; filters status, assignee (documentId, me, none), inboxId, unread, q. Members see the unassigned conversations and theirs; admins all. ${ids}`,
        ),
        querystring: conversationListQuery,
        response: { 200: pagedConversations },
      },
    },
    async (req) => service.listConversations(req.tenant, req.query),
  );

  app.get(
    '/conversations/meta',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Conversation counts',
        description: beta(
          'Counts of the conversations the caller may see: all, mine, unassigned, by status.',
        ),
        response: { 200: conversationsMeta },
      },
    },
    async (req) => service.conversationsMeta(req.tenant),
  );

  app.get(
    '/conversations/unread-counts',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Unread counts',
        description: beta('Conversations with unread messages and unread messages, in total and by inbox.'),
        response: { 200: unreadCounts },
      },
    },
    async (req) => service.unreadCounts(req.tenant),
  );

  app.get(
    '/conversations/events',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Live inbox updates (Server-Sent Events)',
        description: beta(
          'A text/event-stream of `message.created` ({ conversation, message }) and `conversation.updated` ({ conversation }) for the conversations the caller may see, from every API process. A comment line every 15 s keeps it open. Reconnecting with `Last-Event-ID` (EventSource does) first replays what was missed since that event: the conversations changed and the messages created, with a 5 s overlap (an event may arrive twice, with the same id). Send an Accept header (text/event-stream); a request without one gets an empty stream that ends at once.',
        ),
        produces: ['text/event-stream'],
        response: { 200: z.string().describe('event stream') },
      },
    },
    async (req, reply) => {
      service.requireInbox(req.tenant);
      // EventSource, fetch and curl send an Accept header; a request without one (a sweep, a bare probe) gets
      // the stream's opening and its end instead of a connection that never finishes.
      if (!req.headers.accept)
        return reply
          .type('text/event-stream; charset=utf-8')
          .send(': send Accept: text/event-stream to keep this stream open\n\n');
      const ctx = req.tenant;
      const raw = reply.raw;
      let unsubscribe: (() => void) | undefined;
      const reader = {
        orgId: ctx.orgId,
        role: ctx.role,
        membershipId: ctx.membershipId,
        send(event: string, id: string, data: unknown) {
          raw.write(`event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
        },
      };
      unsubscribe = await hub.subscribe(reader);
      reply.hijack();
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': req.id,
      });
      raw.write(': connected\n\n');
      // EventSource sends the id of the last event it saw when it reconnects: what it missed comes first.
      const lastEventId = req.headers['last-event-id'];
      if (typeof lastEventId === 'string' && lastEventId)
        await hub
          .replay(reader, lastEventId)
          .catch((err) => req.log.warn({ err }, 'inbox live: replay failed'));
      // A first id (no event): a reader that has seen no event yet still reconnects from here and misses nothing.
      else raw.write(`id: c0-${Date.now()}\n\n`);
      const beat = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
      beat.unref();
      const counted = deps.metrics.streamOpened();
      const stop = () => {
        clearInterval(beat);
        counted();
        unsubscribe?.();
        unsubscribe = undefined;
        streams.delete(end);
      };
      // At shutdown: tell EventSource to reconnect soon (to another process, or this one restarted).
      const end = () => {
        stop();
        raw.end('retry: 2000\n: server shutting down, reconnect\n\n');
      };
      streams.add(end);
      raw.on('close', stop);
    },
  );

  app.post(
    '/conversations',
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Start a conversation',
        description: beta(
          'Opens (or reuses) the conversation of a contact in an inbox and sends a first message: outside the 24-hour window it must be a template, message: { content, template_params: { name, category, language, processed_params } }. Reaches a real person.',
        ),
        body: dataBody(startConversationInput, [
          {
            inboxId: 1,
            contact: 'k3v9x2m8q1w7e5r4t6y0u2i8',
            message: {
              content: 'Hello Ana, your order shipped',
              template_params: {
                name: 'order_update',
                category: 'UTILITY',
                language: 'en_US',
                processed_params: { '1': 'Ana' },
              },
            },
          },
        ]),
        response: { 201: z.object({ conversation, message }) },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await send.startConversation(req.tenant, await kit(), req.body.data)),
  );

  app.get(
    '/conversations/:id',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'One conversation',
        description: beta('By numeric id, with windowExpiresAt (end of the 24-hour free-text window).'),
        params: idParams,
        response: { 200: conversation },
      },
    },
    async (req) => service.getConversation(req.tenant, req.params.id),
  );

  app.patch(
    '/conversations/:id',
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Change status or assignee',
        description: beta(
          'status open|pending|resolved|snoozed (snoozedUntil with snoozed), assignee a membership documentId or null.',
        ),
        params: idParams,
        body: dataBody(conversationUpdate, [{ status: 'resolved' }, { assignee: null }]),
        response: { 200: conversation },
      },
    },
    async (req) => service.updateConversation(req.tenant, req.params.id, req.body.data),
  );

  app.post(
    '/conversations/:id/seen',
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Mark a conversation seen',
        description: beta('Sets unreadCount to 0.'),
        params: idParams,
        response: { 200: conversation },
      },
    },
    async (req) => service.markSeen(req.tenant, req.params.id),
  );

  app.post(
    '/conversations/:id/unread',
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Mark a conversation unread',
        description: beta('unreadCount becomes at least 1.'),
        params: idParams,
        response: { 200: conversation },
      },
    },
    async (req) => service.markUnread(req.tenant, req.params.id),
  );

  app.get(
    '/conversations/:id/messages',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Messages of a conversation',
        description: beta(
          'Newest first; before=ID (older) or after=ID (newer) with numeric message ids; limit ≤ 100, default 20; meta.hasMore.',
        ),
        params: idParams,
        querystring: messagesQuery,
        response: { 200: messagePage },
      },
    },
    async (req) => service.listMessages(req.tenant, req.params.id, req.query),
  );

  app.post(
    '/conversations/:id/messages',
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Send a message',
        description: beta(
          "Free text only inside the 24-hour window (since the contact's last message); outside it 422: send message.template_params { name, category, language, processed_params }. Reaches a real person; sent at most once (Idempotency-Key replays). A provider failure is a 502 and the message stays failed.",
        ),
        params: idParams,
        body: dataBody(sendMessageInput, [{ message: { content: 'Thanks, we are on it!' } }]),
        response: { 201: message },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await send.sendMessage(req.tenant, await kit(), req.params.id, req.body.data.message)),
  );

  app.get(
    '/conversations/:id/messages/:messageId/media',
    {
      config: { scope: read },
      schema: {
        tags,
        summary: "Download a message's media",
        description: beta(
          'The image, audio, video or document of a message, fetched through the provider (WhatsApp keeps inbound media; its short-lived URL is resolved here). 404 when the message has no media.',
        ),
        params: z.object({ id: idParams.shape.id, messageId: numericIdParam('message') }),
        produces: ['application/octet-stream'],
        response: { 200: z.any().describe('the file') },
      },
    },
    async (req, reply) => {
      const file = await send.downloadAttachment(
        req.tenant,
        await kit(),
        req.params.id,
        req.params.messageId,
      );
      const name = (file.filename ?? `media-${req.params.messageId}`).replace(/[^\w.\- ]+/g, '_');
      return reply
        .type(file.mimeType)
        .header('content-disposition', `attachment; filename="${name}"`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .send(file.bytes);
    },
  );

  app.post(
    '/conversations/:id/attachments',
    {
      bodyLimit: 72 * 1024 * 1024,
      config: { scope: write },
      schema: {
        tags,
        summary: 'Send an attachment',
        description: beta(
          `base64 + filename + mimeType, at most 50 MB decoded and a type WhatsApp supports (${send.SUPPORTED_TYPES.join(', ')}), else 400; inside the 24-hour window. Uploaded through the provider's media endpoint. Reaches a real person.`,
        ),
        params: idParams,
        body: dataBody(attachmentInput, [
          {
            base64: 'JVBERi0xLjQK',
            filename: 'quote.pdf',
            mimeType: 'application/pdf',
            caption: 'Your quote',
          },
        ]),
        response: { 201: message },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await send.sendAttachment(req.tenant, await kit(), req.params.id, req.body.data)),
  );

  app.get(
    '/conversations/:id/card',
    {
      config: { scope: [read, 'cards:read'] },
      schema: {
        tags,
        summary: "A conversation's card",
        description: beta('The card linked to the conversation, or null.'),
        params: idParams,
        response: { 200: conversationCard },
      },
    },
    async (req) => cards.getConversationCard(req.tenant, req.params.id),
  );

  app.post(
    '/conversations/:id/card',
    {
      config: { scope: [write, 'cards:write'] },
      schema: {
        tags,
        summary: 'Create a card from a conversation',
        description: beta(
          "A card (creationSource chat_inbound, entry phase, the conversation's contact) on board, by default the inbox's first linked board; 422 when the conversation has one.",
        ),
        params: idParams,
        body: dataBody(cardCreateInput, [{ board: 'k3v9x2m8q1w7e5r4t6y0u2i8', title: 'Ana — new order' }]),
        response: { 201: conversation },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await cards.createConversationCard(req.tenant, req.params.id, req.body.data)),
  );

  app.post(
    '/conversations/:id/card/link',
    {
      config: { scope: [write, 'cards:write'] },
      schema: {
        tags,
        summary: 'Link a card to a conversation',
        description: beta(
          'Links an existing card (documentId); 422 when the conversation has one (use switch).',
        ),
        params: idParams,
        body: dataBody(cardLinkInput, [{ card: 'k3v9x2m8q1w7e5r4t6y0u2i8' }]),
        response: { 200: conversation },
      },
    },
    async (req) => cards.linkConversationCard(req.tenant, req.params.id, req.body.data.card, false),
  );

  app.post(
    '/conversations/:id/card/switch',
    {
      config: { scope: [write, 'cards:write'] },
      schema: {
        tags,
        summary: "Switch a conversation's card",
        description: beta(
          'Replaces the linked card with another (documentId); 422 when none is linked (use link).',
        ),
        params: idParams,
        body: dataBody(cardLinkInput, [{ card: 'k3v9x2m8q1w7e5r4t6y0u2i8' }]),
        response: { 200: conversation },
      },
    },
    async (req) => cards.linkConversationCard(req.tenant, req.params.id, req.body.data.card, true),
  );

  app.get(
    '/contacts/:contactId/conversations',
    {
      config: { scope: [read, 'contacts:read'] },
      schema: {
        tags,
        summary: "A contact's conversations",
        description: beta('The conversations of a contact (documentId) the caller may see.'),
        params: contactParams,
        response: { 200: z.object({ data: z.array(conversation) }) },
      },
    },
    async (req) => service.listContactConversations(req.tenant, req.params.contactId),
  );

  app.get(
    '/contacts/:contactId/conversation-cards',
    {
      config: { scope: [read, 'contacts:read', 'cards:read'] },
      schema: {
        tags,
        summary: "Cards of a contact's conversations",
        description: beta("Cards linked to the contact's conversations, on boards the caller may see."),
        params: contactParams,
        response: { 200: z.object({ data: z.array(chatCard) }) },
      },
    },
    async (req) => cards.contactConversationCards(req.tenant, req.params.contactId),
  );

  app.post(
    '/contacts/:contactId/chat-sync',
    {
      config: { scope: [write, 'contacts:read'] },
      schema: {
        tags,
        summary: 'Sync a contact to chat',
        description: beta(
          'Makes sure the contact (with a phone number) has a conversation in the inbox, made like an inbound one (card on the linked board); sends nothing.',
        ),
        params: contactParams,
        body: dataBody(syncContactInput, [{ inboxId: 1 }]),
        response: { 200: z.object({ created: z.boolean(), conversation }) },
      },
    },
    async (req) => send.syncContactToChat(req.tenant, req.params.contactId, req.body.data.inboxId),
  );

  app.get(
    '/boards/:boardId/chat-cards',
    {
      config: { scope: [read, 'cards:read'] },
      schema: {
        tags,
        summary: "A board's chat cards",
        description: beta('Cards of the board linked to conversations, with their conversation ids.'),
        params: boardParams,
        response: { 200: z.object({ data: z.array(chatCard) }) },
      },
    },
    async (req) => cards.boardChatCards(req.tenant, req.params.boardId),
  );

  app.get(
    '/chat-contacts',
    {
      config: { scope: [read, 'contacts:read'] },
      schema: {
        tags,
        summary: 'Search chat contacts',
        description: beta(
          'Contacts with a phone number (reachable on WhatsApp) matching q, with their conversations.',
        ),
        querystring: chatContactsQuery,
        response: { 200: z.object({ data: z.array(chatContact) }) },
      },
    },
    async (req) => searchChatContacts(req.tenant, req.query.q, req.query.limit),
  );
};
