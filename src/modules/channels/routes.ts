import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { lazyChannelKit } from './credentials.js';
import {
  boardChannels,
  boardChannelsInput,
  boardChannelsParams,
  channel,
  channelHealth,
  channelInput,
  channelUpdate,
} from './schema.js';
import * as service from './service.js';

const tags = ['Channels'];

export const channelRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyChannelKit(deps.config, deps.db);
  app.get(
    '/chat-channels',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags,
        summary: 'List chat channels',
        description:
          'BETA: WhatsApp, e-mail and SMS channels of the organization; credentials are never returned.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(channel) },
      },
    },
    async (req) => service.listChannels(req.tenant, req.query),
  );

  app.get(
    '/chat-channels/:id',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags,
        summary: 'One chat channel',
        description: 'BETA: settings, hasCredentials and linked boards.',
        params: idParams,
        response: { 200: channel },
      },
    },
    async (req) => service.getChannel(req.tenant, req.params.id),
  );

  app.post(
    '/chat-channels',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags,
        summary: 'Create a chat channel (admin)',
        description:
          'BETA: settings and credentials depend on type (whatsapp: phoneNumberId, businessAccountId / accessToken, appSecret, verifyToken; email: fromName, fromAddress, replyTo? / smtpUrl?, webhookSecret?; sms: from / accountSid, authToken). Credentials are encrypted and write-only. An e-mail channel answers its generated webhookSecret once.',
        body: dataBody(channelInput, [
          {
            name: 'WhatsApp Sales',
            type: 'whatsapp',
            settings: {
              phoneNumberId: '106540352242922',
              businessAccountId: '102290129340398',
              ratePerSecond: 20,
            },
            credentials: { accessToken: 'EAAG…', appSecret: 'app-secret', verifyToken: 'verify-me' },
          },
          {
            name: 'Newsletter',
            type: 'email',
            settings: { fromName: 'Acme', fromAddress: 'news@acme.example' },
          },
        ]),
        response: { 201: channel },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createChannel(req.tenant, await kit(), req.body.data)),
  );

  app.put(
    '/chat-channels/:id',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags,
        summary: 'Update a chat channel (admin); partial, settings and credentials merged',
        description:
          'BETA: the type cannot change. Credentials given are merged into the stored ones and re-encrypted.',
        params: idParams,
        body: dataBody(channelUpdate, [{ settings: { ratePerSecond: 5 } }]),
        response: { 200: channel },
      },
    },
    async (req) => service.updateChannel(req.tenant, await kit(), req.params.id, req.body.data),
  );

  app.delete(
    '/chat-channels/:id',
    {
      config: { scope: 'channels:write' },
      schema: {
        tags,
        summary: 'Delete a chat channel (admin)',
        description: 'BETA: refused (422) while campaigns use it; its templates and board links go with it.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteChannel(req.tenant, req.params.id),
  );

  app.get(
    '/chat-channels/:id/health',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags,
        summary: 'Check a channel against its provider',
        description:
          'BETA: makes a real provider call (WhatsApp phone number, SMS account, SMTP greeting) and reports its outcome and latency.',
        params: idParams,
        response: { 200: channelHealth },
      },
    },
    async (req) => service.channelHealth(req.tenant, await kit(), req.params.id),
  );

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
};
