import { z } from 'zod';
import { membershipRef } from '../../platform/http/schemas.js';
import { CONTENT_TYPES, CONVERSATION_STATUSES, MESSAGE_DIRECTIONS, MESSAGE_STATUSES } from './table.js';

/** Numeric ids of the inbox (spec tool rule 3): never documentIds. */
export const numericId = (what: string) =>
  z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .describe(`numeric id of the ${what} (not a documentId)`);

export const idParams = z.object({ id: numericId('conversation') });
export const inboxParams = z.object({ id: numericId('inbox') });
export const contactParams = z.object({ contactId: z.string().min(1).max(64).describe('documentId') });
export const boardParams = z.object({ boardId: z.string().min(1).max(64).describe('documentId') });

const contactRef = z
  .object({
    documentId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
  })
  .meta({ id: 'ChatContactRef' });

const boardRef = z.object({ documentId: z.string(), name: z.string() });

export const cardRef = z
  .object({ documentId: z.string(), title: z.string(), board: boardRef })
  .meta({ id: 'ConversationCardRef' });

export const inbox = z
  .object({
    id: z.number().int().describe('numeric id of the inbox'),
    name: z.string().describe("the channel's name"),
    channel: z.object({ documentId: z.string(), name: z.string(), phoneNumberId: z.string().nullable() }),
    boards: z.array(boardRef).describe('boards linked to the channel; the first one receives new cards'),
    createdAt: z.string(),
  })
  .meta({ id: 'ChatInbox' });

export const inboxBoardLink = z
  .object({
    inboxId: z.number().int(),
    board: boardRef.extend({ boardType: z.string() }),
    createsCards: z.boolean().describe('new conversations of the inbox become cards on this board'),
  })
  .meta({ id: 'InboxBoardLink' });

export const conversation = z
  .object({
    id: z.number().int().describe('numeric id of the conversation'),
    inboxId: z.number().int(),
    contact: contactRef.nullable(),
    waId: z.string().describe('the WhatsApp user id (phone digits)'),
    status: z.enum(CONVERSATION_STATUSES),
    snoozedUntil: z.string().nullable(),
    assignee: membershipRef.nullable(),
    unreadCount: z.number().int(),
    lastMessageAt: z.string().nullable(),
    lastIncomingAt: z.string().nullable(),
    windowExpiresAt: z
      .string()
      .nullable()
      .describe('end of the 24-hour window for free text; null: no incoming message yet (templates only)'),
    lastMessagePreview: z.string().nullable(),
    card: cardRef.nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Conversation' });
export type Conversation = z.infer<typeof conversation>;

export const attachment = z.object({
  mediaId: z.string().nullable(),
  filename: z.string().nullable(),
  mimeType: z.string().nullable(),
  size: z.number().int().nullable(),
  caption: z.string().nullable().optional(),
});

export const message = z
  .object({
    id: z.number().int().describe('numeric id of the message (the paging cursor)'),
    conversationId: z.number().int(),
    direction: z.enum(MESSAGE_DIRECTIONS),
    content: z.string(),
    contentType: z.enum(CONTENT_TYPES),
    attachments: z.array(attachment),
    template: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(MESSAGE_STATUSES),
    error: z.string().nullable(),
    sender: z.object({
      type: z.enum(['contact', 'member', 'system']),
      membership: membershipRef.nullable(),
    }),
    createdAt: z.string(),
  })
  .meta({ id: 'ChatMessage' });
export type Message = z.infer<typeof message>;

const pageQuery = {
  page: z.coerce.number().int().min(1).optional().describe('page, from 1'),
  pageSize: z.coerce.number().int().min(1).max(100).optional().describe('1..100, default 25'),
};

export const conversationListQuery = z.strictObject({
  status: z
    .enum([...CONVERSATION_STATUSES, 'all'])
    .optional()
    .describe('default: all statuses'),
  assignee: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('a membership documentId, `me` or `none` (unassigned)'),
  inboxId: numericId('inbox').optional(),
  unread: z.enum(['true', 'false']).optional().describe('true: only conversations with unread messages'),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("search the contact's name, phone and last message"),
  ...pageQuery,
  pagination: z
    .strictObject({
      page: z.coerce.number().int().min(1).optional(),
      pageSize: z.coerce.number().int().min(1).max(100).optional(),
    })
    .optional()
    .describe('the Strapi form, pagination[page] and pagination[pageSize]; same as page and pageSize'),
});
export type ConversationListQuery = z.infer<typeof conversationListQuery>;

export const pageMeta = z.object({
  pagination: z.object({ page: z.number(), pageSize: z.number(), pageCount: z.number(), total: z.number() }),
});
export const pagedConversations = z.object({ data: z.array(conversation), meta: pageMeta });

export const conversationsMeta = z.object({
  all: z.number().int(),
  mine: z.number().int(),
  unassigned: z.number().int(),
  byStatus: z.object(
    Object.fromEntries(CONVERSATION_STATUSES.map((s) => [s, z.number().int()])) as {
      [K in (typeof CONVERSATION_STATUSES)[number]]: z.ZodNumber;
    },
  ),
});

export const unreadCounts = z.object({
  conversations: z.number().int().describe('conversations with unread messages'),
  messages: z.number().int().describe('unread messages'),
  byInbox: z.array(
    z.object({ inboxId: z.number().int(), conversations: z.number().int(), messages: z.number().int() }),
  ),
});

export const messagesQuery = z
  .strictObject({
    before: numericId('message').optional().describe('messages older than this message id'),
    after: numericId('message').optional().describe('messages newer than this message id'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('1..100, default 20'),
  })
  .refine((q) => q.before === undefined || q.after === undefined, {
    message: 'use before or after, not both',
    path: ['after'],
  });
export type MessagesQuery = z.infer<typeof messagesQuery>;

export const messagePage = z.object({ data: z.array(message), meta: z.object({ hasMore: z.boolean() }) });

export const templateParams = z
  .strictObject({
    name: z.string().trim().min(1).max(512),
    category: z.string().trim().max(40).optional(),
    language: z.string().trim().min(2).max(20),
    processed_params: z
      .union([z.record(z.string(), z.string().max(1024)), z.array(z.string().max(1024))])
      .optional()
      .describe('body variables in order: { "1": "Ana", "2": "Friday" } or ["Ana", "Friday"]'),
  })
  .describe('a WhatsApp template (needed outside the 24-hour window)');
export type TemplateParams = z.infer<typeof templateParams>;

export const outgoingMessage = z
  .strictObject({
    content: z.string().max(4096).default('').describe('the text; with a template, its rendered text'),
    template_params: templateParams.optional(),
  })
  .refine((m) => m.template_params !== undefined || m.content.trim().length > 0, {
    message: 'content is required without template_params',
    path: ['content'],
  });
export type OutgoingMessage = z.infer<typeof outgoingMessage>;

export const sendMessageInput = z.strictObject({ message: outgoingMessage });

export const attachmentInput = z.strictObject({
  base64: z.string().min(1).describe('the file, base64-encoded (at most 50 MB decoded)'),
  filename: z.string().trim().min(1).max(255),
  mimeType: z.string().trim().min(3).max(127),
  caption: z.string().max(1024).optional(),
});
export type AttachmentInput = z.infer<typeof attachmentInput>;

export const startConversationInput = z.strictObject({
  inboxId: numericId('inbox'),
  contact: z.string().min(1).max(64).describe('documentId of a contact with a phone number'),
  message: outgoingMessage,
});
export type StartConversationInput = z.infer<typeof startConversationInput>;

export const conversationUpdate = z
  .strictObject({
    status: z.enum(CONVERSATION_STATUSES).optional(),
    snoozedUntil: z.iso.datetime({ offset: true }).nullable().optional().describe('with status snoozed'),
    assignee: z
      .string()
      .min(1)
      .max(64)
      .nullable()
      .optional()
      .describe('membership documentId; null unassigns'),
  })
  .refine((u) => Object.keys(u).length > 0, { message: 'give status, snoozedUntil or assignee' });
export type ConversationUpdate = z.infer<typeof conversationUpdate>;

export const cardCreateInput = z.strictObject({
  board: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("board documentId; default: the inbox's first linked board"),
  title: z.string().trim().min(1).max(255).optional(),
});
export const cardLinkInput = z.strictObject({ card: z.string().min(1).max(64).describe('card documentId') });

export const conversationCard = z.object({ conversationId: z.number().int(), card: cardRef.nullable() });

export const chatCard = z.object({
  documentId: z.string(),
  title: z.string(),
  board: boardRef,
  contact: contactRef.nullable(),
  conversationIds: z.array(z.number().int()),
});

export const chatContact = z.object({
  documentId: z.string(),
  name: z.string(),
  phone: z.string(),
  email: z.string().nullable(),
  conversations: z.array(z.object({ id: z.number().int(), inboxId: z.number().int() })),
});
export const chatContactsQuery = z.strictObject({
  q: z.string().trim().min(1).max(200).optional().describe('name, phone or e-mail'),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('1..100, default 20'),
});

export const syncContactInput = z.strictObject({ inboxId: numericId('inbox') });
