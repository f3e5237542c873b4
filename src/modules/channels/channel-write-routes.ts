import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import type { ChannelKit } from './credentials.js';
import { tags } from './route-docs.js';
import { channel, channelInput, channelUpdate } from './schema.js';
import * as service from './service.js';

/** Creating and changing chat channels: create, update, delete. */
export function registerChannelWriteRoutes(app: RouteApp, kit: () => Promise<ChannelKit>) {
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
}
