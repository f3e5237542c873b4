import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { lazyChannelKit } from '../channels/index.js';
import {
  asset,
  assetInput,
  assetParams,
  emailTemplate,
  emailTemplateInput,
  emailTemplateUpdate,
  MAX_ASSET_BYTES,
  previewInput,
  rendered,
  testSendInput,
  testSent,
} from './schema.js';
import * as service from './service.js';

const tags = ['E-mail templates'];

export const emailTemplateRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  const kit = lazyChannelKit(deps.config, deps.db);
  app.get(
    '/email-templates',
    {
      config: { scope: 'email_templates:read' },
      schema: {
        tags,
        summary: 'List e-mail templates',
        description: 'BETA: needs the email_marketing and campaigns features.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(emailTemplate) },
      },
    },
    async (req) => service.listTemplates(req.tenant, req.query),
  );

  app.get(
    '/email-templates/:id',
    {
      config: { scope: 'email_templates:read' },
      schema: {
        tags,
        summary: 'One e-mail template',
        description: 'BETA: with the variables it uses.',
        params: idParams,
        response: { 200: emailTemplate },
      },
    },
    async (req) => service.getTemplate(req.tenant, req.params.id),
  );

  app.post(
    '/email-templates',
    {
      config: { scope: 'email_templates:write' },
      schema: {
        tags,
        summary: 'Create an e-mail template (admin)',
        description:
          'BETA: variables {{contact.name}}, {{contact.email}}, {{contact.phone}}, {{organization.name}}, {{unsubscribeUrl}}, {{contact.customFields.KEY}}, {{variables.KEY}}; any other is a 400.',
        body: dataBody(emailTemplateInput, [
          {
            name: 'Spring newsletter',
            subject: 'Hi {{contact.name}}, spring news from {{organization.name}}',
            html: '<p>Hello {{contact.name}},</p><p>Our spring offers…</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>',
          },
        ]),
        response: { 201: emailTemplate },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createTemplate(req.tenant, req.body.data)),
  );

  app.put(
    '/email-templates/:id',
    {
      config: { scope: 'email_templates:write' },
      schema: {
        tags,
        summary: 'Update an e-mail template (admin); partial',
        description: 'BETA: the same variable rules as create.',
        params: idParams,
        body: dataBody(emailTemplateUpdate, [{ subject: 'Last days: {{contact.name}}' }]),
        response: { 200: emailTemplate },
      },
    },
    async (req) => service.updateTemplate(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/email-templates/:id',
    {
      config: { scope: 'email_templates:write' },
      schema: {
        tags,
        summary: 'Delete an e-mail template (admin)',
        description: 'BETA: refused (422) while a campaign uses it.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteTemplate(req.tenant, req.params.id),
  );

  app.post(
    '/email-templates/:id/preview',
    {
      config: { scope: 'email_templates:read' },
      schema: {
        tags,
        summary: 'Render an e-mail template for a contact (or a sample contact)',
        description: 'BETA: no message is sent.',
        params: idParams,
        body: previewInput.meta({ examples: [{ contact: 'k3v9x2m8q1w7e5r4t6y0u2i8' }, {}] }),
        response: { 200: rendered },
      },
    },
    async (req) => service.previewTemplate(req.tenant, deps.config, req.params.id, req.body),
  );

  app.post(
    '/email-templates/:id/test-send',
    {
      config: { scope: 'email_templates:write', ...strictBucket(deps.config, 'dispatch') },
      schema: {
        tags,
        summary: 'Send a real test message to one address (admin; rate-limited)',
        description:
          'BETA: real side effect: one e-mail, subject prefixed [TEST], sent at once through the channel given (or the service mail); the suppression list is ignored. 202 once the SMTP server accepted it; 502 when it refused.',
        params: idParams,
        body: testSendInput.meta({ examples: [{ to: 'me@example.com' }] }),
        response: { 202: testSent },
      },
    },
    async (req, reply) =>
      reply.code(202).send(await service.testSend(req.tenant, await kit(), req.params.id, req.body)),
  );

  app.get(
    '/email-assets',
    {
      config: { scope: 'email_templates:read' },
      schema: {
        tags,
        summary: 'List e-mail images',
        description: 'BETA: images uploaded for templates, with their public URLs.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(asset) },
      },
    },
    async (req) => service.listAssets(req.tenant, deps.config, req.query),
  );

  app.post(
    '/email-assets',
    {
      config: { scope: 'email_templates:write' },
      bodyLimit: Math.ceil((MAX_ASSET_BYTES * 4) / 3) + 4096,
      schema: {
        tags,
        summary: 'Upload an image for e-mail templates (admin)',
        description: `BETA: PNG, JPEG, GIF or WebP (checked on the bytes), at most ${MAX_ASSET_BYTES / 1048576} MB; answers a stable public URL for the template HTML.`,
        body: dataBody(assetInput, [
          {
            filename: 'logo.png',
            mimeType: 'image/png',
            base64:
              'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5ErkJggg==',
          },
        ]),
        response: { 201: asset },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.uploadAsset(req.tenant, deps.config, req.body.data)),
  );

  app.delete(
    '/email-assets/:id',
    {
      config: { scope: 'email_templates:write' },
      schema: {
        tags,
        summary: 'Delete an e-mail image (admin)',
        description: 'BETA: its public URL stops working; messages already sent show a broken image.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteAsset(req.tenant, req.params.id),
  );

  app.get(
    '/email-assets/:id/:filename',
    {
      // The general per-IP limit only: one office's mail clients all fetch the same image.
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'An e-mail image (public: what sent messages show)',
        description: 'BETA: no token; cached by mail clients.',
        security: [],
        params: assetParams,
        produces: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
        response: { 200: z.any().describe('The image') },
      },
    },
    async (req, reply) => {
      const a = await service.assetForPublic(deps.db, req.params.id, req.params.filename);
      return reply
        .type(a.mimeType)
        .header('cache-control', 'public, max-age=86400, immutable')
        .header('etag', `"${a.sha256}"`)
        .header('x-content-type-options', 'nosniff')
        .send(a.content);
    },
  );
};
