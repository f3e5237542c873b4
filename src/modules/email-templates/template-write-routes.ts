import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { emailTemplate, emailTemplateInput, emailTemplateUpdate } from './schema.js';
import * as service from './service.js';

/** Creating and changing e-mail templates: create, update, delete. */
export function registerTemplateWriteRoutes(app: RouteApp) {
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
}
