import { z } from 'zod';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody } from '../../platform/http/schemas.js';
import type { ChannelKit } from '../channels/index.js';
import { beta, ids, read, tags, write } from './route-docs.js';
import {
  conversation,
  conversationListQuery,
  conversationsMeta,
  conversationUpdate,
  idParams,
  message,
  pagedConversations,
  startConversationInput,
  unreadCounts,
} from './schema.js';
import * as send from './send.js';
import * as service from './service.js';

/** The conversation list and its counts (the inbox page and its badges). */
export function registerConversationListRoutes(app: RouteApp) {
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
}

/** One conversation: start it (a first message), read it, change its status or assignee. */
export function registerConversationRoutes(app: RouteApp, kit: () => Promise<ChannelKit>) {
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
          'status open|pending|resolved|snoozed (snoozedUntil with snoozed: the conversation is reopened within a minute of that date, or earlier when the contact writes), assignee a membership documentId or null.',
        ),
        params: idParams,
        body: dataBody(conversationUpdate, [{ status: 'resolved' }, { assignee: null }]),
        response: { 200: conversation },
      },
    },
    async (req) => service.updateConversation(req.tenant, req.params.id, req.body.data),
  );
}

/** A conversation's read state: seen or unread. */
export function registerReadStateRoutes(app: RouteApp) {
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
}
