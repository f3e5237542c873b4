import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { idParams } from '../../platform/http/schemas.js';
import { lazyChannelKit } from '../channels/index.js';
import { registerAssetRoutes } from './asset-routes.js';
import { tags } from './route-docs.js';
import { emailTemplate, previewInput, rendered, testSendInput, testSent } from './schema.js';
import * as service from './service.js';
import { registerTemplateWriteRoutes } from './template-write-routes.js';

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

  registerTemplateWriteRoutes(app);

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

  registerAssetRoutes(app, deps);
};
