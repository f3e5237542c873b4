import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody } from '../../platform/http/schemas.js';
import * as cards from './cards.js';
import { beta, read, tags, write } from './route-docs.js';
import { cardCreateInput, cardLinkInput, conversation, conversationCard, idParams } from './schema.js';

/** A conversation's card: read it, create one, link or switch an existing one. */
export function registerCardRoutes(app: RouteApp) {
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
}
