import { z } from 'zod';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody } from '../../platform/http/schemas.js';
import type { ChannelKit } from '../channels/index.js';
import { beta, read, tags, write } from './route-docs.js';
import {
  attachmentInput,
  idParams,
  message,
  messagePage,
  messagesQuery,
  numericId as numericIdParam,
  sendMessageInput,
} from './schema.js';
import * as send from './send.js';
import * as service from './service.js';

/** A conversation's messages: read them, send text or an attachment, download their media. */
export function registerMessageRoutes(app: RouteApp, kit: () => Promise<ChannelKit>) {
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
          "Free text only inside the 24-hour window (since the contact's last message); outside it 422: send message.template_params { name, category, language, processed_params }. Reaches a real person; sent at most once (Idempotency-Key replays). Paced by WhatsApp's limits (the number's messages per second; one message per CRM_WHATSAPP_PAIR_INTERVAL_MS to the same person: the call waits for its slot); WhatsApp's throughput (130429) and pair-rate (131056) refusals are waited out and retried. WhatsApp's own window refusal (131047) is the same 422 with details.providerCode; any other provider failure is a 502 (details.providerCode) and the message stays failed.",
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
}
