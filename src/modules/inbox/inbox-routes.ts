import { z } from 'zod';
import type { RouteApp } from '../../platform/http/route-app.js';
import { beta, ids, read, tags } from './route-docs.js';
import { inbox, inboxBoardLink, inboxParams } from './schema.js';
import * as service from './service.js';

/** The inboxes themselves (/inboxes): one per WhatsApp channel, with the boards it makes cards on. */
export function registerInboxRoutes(app: RouteApp) {
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
}
