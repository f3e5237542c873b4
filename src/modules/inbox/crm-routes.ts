import { z } from 'zod';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody } from '../../platform/http/schemas.js';
import * as cards from './cards.js';
import { searchChatContacts } from './contacts.js';
import { beta, read, tags, write } from './route-docs.js';
import {
  boardParams,
  chatCard,
  chatContact,
  chatContactsQuery,
  contactParams,
  conversation,
  syncContactInput,
} from './schema.js';
import * as send from './send.js';
import * as service from './service.js';

/**
 * The inbox seen from the CRM's contacts and boards: a contact's conversations and their cards, syncing a contact
 * to chat, a board's chat cards, the contact search of a new chat.
 */
export function registerCrmRoutes(app: RouteApp) {
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
}
