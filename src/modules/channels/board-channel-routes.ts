import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { boardChannels, boardChannelsInput, boardChannelsParams } from './schema.js';
import * as service from './service.js';

/** The chat channels linked to a board: read and set the list. */
export function registerBoardChannelRoutes(app: RouteApp) {
  app.get(
    '/boards/:boardId/chat-channels',
    {
      config: { scope: ['boards:read', 'channels:read'] },
      schema: {
        tags,
        summary: 'Chat channels linked to a board',
        description: 'BETA: the channels whose conversations and campaigns belong to this board.',
        params: boardChannelsParams,
        response: { 200: boardChannels },
      },
    },
    async (req) => service.listBoardChannels(req.tenant, req.params.boardId),
  );

  app.put(
    '/boards/:boardId/chat-channels',
    {
      config: { scope: ['boards:write', 'channels:write'] },
      schema: {
        tags,
        summary: 'Set the chat channels linked to a board (admin)',
        description: 'BETA: replaces the list; an empty list unlinks every channel.',
        params: boardChannelsParams,
        body: dataBody(boardChannelsInput, [{ channels: ['k3v9x2m8q1w7e5r4t6y0u2i8'] }]),
        response: { 200: boardChannels },
      },
    },
    async (req) => service.setBoardChannels(req.tenant, req.params.boardId, req.body.data.channels),
  );
}
