import { z } from 'zod';
import { unwrap } from '../api-client.js';
import { defined, readTool, type Tool, writeTool } from '../tool-kit.js';
import { docId, membershipRef, numericId } from './common.js';

/**
 * The inbox (spec tool group "Inbox", tool rules 3–6). Inbox, conversation and message ids are numeric and are
 * not interchangeable with documentIds (contacts, cards, boards, channels). Every write is confirmed by a
 * person (rule 5); sending messages and attachments reaches a real person on WhatsApp.
 */

const inboxId = numericId('inbox', 'see crm.list_chat_inboxes');
const conversationId = numericId('conversation', 'see crm.list_conversations');

const contactRef = z
  .object({
    documentId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .loose();
const boardRef = z.object({ documentId: z.string(), name: z.string() }).loose();
const cardRef = z
  .object({ documentId: z.string().describe('card documentId'), title: z.string(), board: boardRef })
  .loose();

const inbox = z
  .object({
    id: z.number().int().describe('numeric inbox id'),
    name: z.string(),
    channel: z
      .object({ documentId: z.string(), name: z.string(), phoneNumberId: z.string().nullable() })
      .loose(),
    boards: z.array(boardRef).describe('linked boards; the first receives cards of new conversations'),
  })
  .loose();

const conversation = z
  .object({
    id: z.number().int().describe('numeric conversation id'),
    inboxId: z.number().int(),
    contact: contactRef.nullable(),
    waId: z.string().describe('WhatsApp number (digits)'),
    status: z.enum(['open', 'pending', 'resolved', 'snoozed']),
    assignee: membershipRef.nullable(),
    unreadCount: z.number().int(),
    lastMessageAt: z.string().nullable(),
    lastIncomingAt: z.string().nullable(),
    windowExpiresAt: z
      .string()
      .nullable()
      .describe('free text is allowed until then; after it (or when null) only templates'),
    card: cardRef.nullable(),
  })
  .loose();

const message = z
  .object({
    id: z.number().int().describe('numeric message id (a paging cursor)'),
    conversationId: z.number().int(),
    direction: z.enum(['incoming', 'outgoing']),
    content: z.string(),
    contentType: z.enum(['text', 'template', 'image', 'audio', 'video', 'document']),
    attachments: z.array(z.record(z.string(), z.unknown())),
    status: z.enum(['queued', 'sent', 'delivered', 'read', 'failed']),
    error: z.string().nullable(),
    createdAt: z.string(),
  })
  .loose();

const chatCard = cardRef.extend({
  contact: contactRef.nullable(),
  conversationIds: z.array(z.number().int()).describe('numeric ids of the linked conversations'),
});

const templateParams = z
  .object({
    name: z.string().min(1).describe('approved WhatsApp template name'),
    category: z.string().optional().describe('MARKETING, UTILITY or AUTHENTICATION'),
    language: z.string().min(2).describe('template language, e.g. pt_BR or en_US'),
    processed_params: z
      .record(z.string(), z.string())
      .optional()
      .describe('body variables by position: { "1": "Ana", "2": "Friday" }'),
  })
  .describe('a WhatsApp template; required outside the 24-hour window');

const outgoing = z
  .object({
    content: z.string().max(4096).describe('the text; with a template, its rendered text (shown in the CRM)'),
    template_params: templateParams.optional(),
  })
  .describe(
    'message: { content, template_params? }. Free text is allowed only inside the 24-hour window since the contact last wrote; outside it send template_params.',
  );

const list = <T extends z.ZodTypeAny>(item: T) => z.object({ data: z.array(item) });

const readTools: Tool[] = [
  readTool({
    name: 'list_chat_inboxes',
    title: 'List chat inboxes',
    description:
      'Lists the WhatsApp inboxes (numeric ids), one per WhatsApp channel, with their linked boards.',
    input: {},
    output: list(inbox),
    run: (_a, { api, apiUrl }) => unwrap(api.GET('/api/inboxes'), apiUrl),
  }),
  readTool({
    name: 'get_chat_inbox',
    title: 'Get a chat inbox',
    description:
      'One WhatsApp inbox by its numeric id (from crm.list_chat_inboxes), with its channel and linked boards.',
    input: { inboxId },
    output: inbox,
    run: (a, { api, apiUrl }) =>
      unwrap(api.GET('/api/inboxes/{id}', { params: { path: { id: a.inboxId } } }), apiUrl),
  }),
  readTool({
    name: 'list_inbox_board_links',
    title: 'List inbox board links',
    description:
      'The boards an inbox is linked to; createsCards marks the board where new conversations become cards (creationSource chat_inbound).',
    input: { inboxId },
    output: list(z.object({ inboxId: z.number().int(), board: boardRef, createsCards: z.boolean() }).loose()),
    run: (a, { api, apiUrl }) =>
      unwrap(api.GET('/api/inboxes/{id}/boards', { params: { path: { id: a.inboxId } } }), apiUrl),
  }),
  readTool({
    name: 'list_conversations',
    title: 'List conversations',
    description:
      'Lists conversations, most recent activity first, with filters. Returns numeric conversation ids for the other inbox tools.',
    input: {
      status: z.enum(['open', 'pending', 'resolved', 'snoozed', 'all']).optional().describe('default all'),
      assignee: z.string().optional().describe('membership documentId, "me" or "none" (unassigned)'),
      inboxId: inboxId.optional(),
      unread: z.boolean().optional().describe('true: only conversations with unread messages'),
      q: z.string().optional().describe("search in the contact's name, phone and the last message"),
      page: z.number().int().min(1).optional().describe('page from 1'),
      pageSize: z.number().int().min(1).max(100).optional().describe('1..100, default 25'),
    },
    output: z.object({ data: z.array(conversation), meta: z.object({}).loose() }),
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/conversations', {
          params: {
            query: defined({
              ...a,
              unread: a.unread === undefined ? undefined : (String(a.unread) as 'true' | 'false'),
            }),
          },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'get_conversation',
    title: 'Get a conversation',
    description:
      'One conversation by numeric id, with windowExpiresAt (end of the free-text window) and its card.',
    input: { conversationId },
    output: conversation,
    run: (a, { api, apiUrl }) =>
      unwrap(api.GET('/api/conversations/{id}', { params: { path: { id: a.conversationId } } }), apiUrl),
  }),
  readTool({
    name: 'get_conversations_meta',
    title: 'Conversation counts',
    description: 'Counts of the visible conversations: all, mine, unassigned and by status.',
    input: {},
    output: z
      .object({
        all: z.number(),
        mine: z.number(),
        unassigned: z.number(),
        byStatus: z.record(z.string(), z.number()),
      })
      .loose(),
    run: (_a, { api, apiUrl }) => unwrap(api.GET('/api/conversations/meta'), apiUrl),
  }),
  readTool({
    name: 'list_contact_conversations',
    title: "List a contact's conversations",
    description: 'The conversations of a contact (by contact documentId).',
    input: { contactId: docId('contact') },
    output: list(conversation),
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/contacts/{contactId}/conversations', { params: { path: { contactId: a.contactId } } }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'get_conversation_unread_counts',
    title: 'Unread counts',
    description: 'Conversations with unread messages and unread messages, in total and by inbox.',
    input: {},
    output: z
      .object({ conversations: z.number(), messages: z.number(), byInbox: z.array(z.object({}).loose()) })
      .loose(),
    run: (_a, { api, apiUrl }) => unwrap(api.GET('/api/conversations/unread-counts'), apiUrl),
  }),
  readTool({
    name: 'list_conversation_messages',
    title: 'List conversation messages',
    description:
      'Messages of a conversation, newest first. Page with before (older than a numeric message id) or after (newer); meta.hasMore says whether more exist in that direction.',
    input: {
      conversationId,
      before: numericId('message', 'older than this one').optional(),
      after: numericId('message', 'newer than this one').optional(),
      limit: z.number().int().min(1).max(100).optional().describe('1..100, default 20'),
    },
    output: z.object({ data: z.array(message), meta: z.object({ hasMore: z.boolean() }) }),
    run: ({ conversationId: id, ...query }, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/conversations/{id}/messages', { params: { path: { id }, query: defined(query) } }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'get_conversation_card',
    title: "Get a conversation's card",
    description: 'The card linked to a conversation, or null.',
    input: { conversationId },
    output: z.object({ conversationId: z.number().int(), card: cardRef.nullable() }),
    run: (a, { api, apiUrl }) =>
      unwrap(api.GET('/api/conversations/{id}/card', { params: { path: { id: a.conversationId } } }), apiUrl),
  }),
  readTool({
    name: 'list_contact_conversation_cards',
    title: "List a contact's conversation cards",
    description: "Cards linked to a contact's conversations (contact documentId).",
    input: { contactId: docId('contact') },
    output: list(chatCard),
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/contacts/{contactId}/conversation-cards', {
          params: { path: { contactId: a.contactId } },
        }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'list_chat_cards',
    title: "List a board's chat cards",
    description:
      'Cards of a board (documentId) that are linked to conversations, with their numeric conversation ids.',
    input: { boardId: docId('board') },
    output: list(chatCard),
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.GET('/api/boards/{boardId}/chat-cards', { params: { path: { boardId: a.boardId } } }),
        apiUrl,
      ),
  }),
  readTool({
    name: 'search_chat_contacts',
    title: 'Search chat contacts',
    description:
      'Contacts reachable on WhatsApp (with a phone), by name, phone or e-mail, with their conversations (numeric ids).',
    input: {
      q: z.string().optional().describe('name, phone or e-mail'),
      limit: z.number().int().min(1).max(100).optional().describe('1..100, default 20'),
    },
    output: list(
      z
        .object({
          documentId: z.string(),
          name: z.string(),
          phone: z.string(),
          conversations: z.array(z.object({ id: z.number().int(), inboxId: z.number().int() })),
        })
        .loose(),
    ),
    run: (a, { api, apiUrl }) =>
      unwrap(api.GET('/api/chat-contacts', { params: { query: defined(a) } }), apiUrl),
  }),
];

const writeTools: Tool[] = [
  writeTool({
    name: 'send_conversation_message',
    openWorld: true,
    title: 'Send a message',
    description:
      'Sends a WhatsApp message to the contact of a conversation (reaches a real person). Free text only inside the 24-hour window (see windowExpiresAt); outside it pass message.template_params, else the service answers 422.',
    input: { conversationId, message: outgoing },
    output: message,
    destructive: false,
    idempotent: false,
    summary: (a) =>
      a.message.template_params
        ? `send the WhatsApp template "${a.message.template_params.name}" in conversation ${a.conversationId}`
        : `send the WhatsApp message "${a.message.content.slice(0, 80)}" in conversation ${a.conversationId}`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations/{id}/messages', {
          params: { path: { id: a.conversationId } },
          body: { data: { message: a.message } },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'send_conversation_attachment',
    openWorld: true,
    title: 'Send an attachment',
    description:
      'Sends a file on WhatsApp in a conversation (reaches a real person): base64 with filename and mimeType, at most 50 MB, a type WhatsApp supports (jpeg/png images, aac/amr/mpeg/mp4/ogg audio, mp4/3gpp video, pdf/txt/office documents); inside the 24-hour window.',
    input: {
      conversationId,
      base64: z.string().min(1).describe('the file, base64-encoded'),
      filename: z.string().min(1).max(255).describe('file name shown to the person, e.g. quote.pdf'),
      mimeType: z.string().min(3).max(127).describe('e.g. application/pdf'),
      caption: z.string().max(1024).optional().describe('text shown with the file (not for audio)'),
    },
    output: message,
    destructive: false,
    idempotent: false,
    summary: (a) => `send the file "${a.filename}" (${a.mimeType}) in conversation ${a.conversationId}`,
    run: ({ conversationId: id, ...data }, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations/{id}/attachments', { params: { path: { id } }, body: { data } }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'start_conversation',
    openWorld: true,
    title: 'Start a conversation',
    description:
      'Starts (or reuses) a WhatsApp conversation with a contact in an inbox and sends the first message (reaches a real person). Outside the 24-hour window — always when the contact never wrote — the message must be a template: message: { content, template_params: { name, category, language, processed_params } }.',
    input: { inboxId, contactId: docId('contact (with a phone number)'), message: outgoing },
    output: z.object({ conversation, message }),
    destructive: false,
    idempotent: false,
    summary: (a) => `start a WhatsApp conversation with contact ${a.contactId} in inbox ${a.inboxId}`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations', {
          body: { data: { inboxId: a.inboxId, contact: a.contactId, message: a.message } },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'update_conversation_status',
    title: 'Update conversation status',
    description:
      'Sets a conversation open, pending, resolved or snoozed (snoozedUntil with snoozed: it is reopened within a minute of that date, or earlier when the contact writes).',
    input: {
      conversationId,
      status: z.enum(['open', 'pending', 'resolved', 'snoozed']).describe('the new status'),
      snoozedUntil: z.string().optional().describe('ISO time, with status snoozed: when it comes back open'),
    },
    output: conversation,
    destructive: false,
    idempotent: true,
    summary: (a) => `set conversation ${a.conversationId} to ${a.status}`,
    run: ({ conversationId: id, ...data }, { api, apiUrl }) =>
      unwrap(
        api.PATCH('/api/conversations/{id}', { params: { path: { id } }, body: { data: defined(data) } }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'mark_conversation_seen',
    title: 'Mark conversation seen',
    description: 'Marks a conversation as read (unreadCount 0).',
    input: { conversationId },
    output: conversation,
    destructive: false,
    idempotent: true,
    summary: (a) => `mark conversation ${a.conversationId} as seen`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations/{id}/seen', { params: { path: { id: a.conversationId } } }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'mark_conversation_unread',
    title: 'Mark conversation unread',
    description: 'Marks a conversation as unread (unreadCount at least 1).',
    input: { conversationId },
    output: conversation,
    destructive: false,
    idempotent: true,
    summary: (a) => `mark conversation ${a.conversationId} as unread`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations/{id}/unread', { params: { path: { id: a.conversationId } } }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'create_card_from_conversation',
    title: 'Create a card from a conversation',
    description:
      "Creates a card for the conversation's contact (creationSource chat_inbound, entry phase) on a board (documentId), by default the inbox's first linked board. Fails when the conversation already has a card (use crm.switch_conversation_card).",
    input: {
      conversationId,
      boardId: docId('board').optional(),
      title: z.string().min(1).max(255).optional().describe("default: the contact's name"),
    },
    output: conversation,
    destructive: false,
    idempotent: false,
    summary: (a) =>
      `create a card from conversation ${a.conversationId}${a.boardId ? ` on board ${a.boardId}` : ''}`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations/{id}/card', {
          params: { path: { id: a.conversationId } },
          body: { data: defined({ board: a.boardId, title: a.title }) },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'link_conversation_to_card',
    title: 'Link a conversation to a card',
    description: 'Links an existing card (documentId) to a conversation that has none.',
    input: { conversationId, cardId: docId('card') },
    output: conversation,
    destructive: false,
    idempotent: true,
    summary: (a) => `link card ${a.cardId} to conversation ${a.conversationId}`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations/{id}/card/link', {
          params: { path: { id: a.conversationId } },
          body: { data: { card: a.cardId } },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'switch_conversation_card',
    title: "Switch a conversation's card",
    description: 'Replaces the card linked to a conversation with another card (documentId).',
    input: { conversationId, cardId: docId('card') },
    output: conversation,
    destructive: true,
    idempotent: true,
    summary: (a) => `switch the card of conversation ${a.conversationId} to ${a.cardId}`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/conversations/{id}/card/switch', {
          params: { path: { id: a.conversationId } },
          body: { data: { card: a.cardId } },
        }),
        apiUrl,
      ),
  }),
  writeTool({
    name: 'sync_contact_to_chat',
    title: 'Sync a contact to chat',
    description:
      'Makes sure a contact (documentId, with a phone number) has a conversation in an inbox (numeric id); sends nothing.',
    input: { contactId: docId('contact'), inboxId },
    output: z.object({ created: z.boolean(), conversation }),
    destructive: false,
    idempotent: true,
    summary: (a) => `add contact ${a.contactId} to inbox ${a.inboxId}`,
    run: (a, { api, apiUrl }) =>
      unwrap(
        api.POST('/api/contacts/{contactId}/chat-sync', {
          params: { path: { contactId: a.contactId } },
          body: { data: { inboxId: a.inboxId } },
        }),
        apiUrl,
      ),
  }),
];

export const inboxTools: Tool[] = [...readTools, ...writeTools];
