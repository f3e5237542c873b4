import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { registerContactBulkRoutes } from './bulk-routes.js';
import { contactImportJobRoutes } from './import-jobs.js';
import { importContactsRoute } from './import-routes.js';
import { tags } from './route-docs.js';
import { contact, contactCreate, contactListQuery, contactUpdate } from './schema.js';
import * as service from './service.js';
import { registerContactTimelineRoutes } from './timeline-routes.js';

export const contactRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/contacts',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        summary: 'List contacts (filters, sort, pagination, `q` search)',
        querystring: contactListQuery,
        response: { 200: paginatedSchema(contact) },
      },
    },
    async (req) => service.listContacts(req.tenant, req.query),
  );

  app.post(
    '/contacts',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Create a contact',
        body: dataBody(contactCreate, [
          {
            name: 'Maria Silva',
            email: 'maria.silva@example.com',
            phone: '+5511987654321',
            contact_type: 'pessoa',
            city: 'São Paulo',
            state: 'SP',
            country: 'BR',
          },
        ]),
        response: { 201: contact },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createContact(req.tenant, req.body.data)),
  );

  app.get(
    '/contacts/:id',
    {
      config: { scope: 'contacts:read' },
      schema: { tags, summary: 'One contact', params: idParams, response: { 200: contact } },
    },
    async (req) => service.getContact(req.tenant, req.params.id),
  );

  app.put(
    '/contacts/:id',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Update a contact (partial)',
        params: idParams,
        body: dataBody(contactUpdate, [{ phone: '+5519912345678', city: 'Campinas' }]),
        response: { 200: contact },
      },
    },
    async (req) => service.updateContact(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/contacts/:id',
    {
      config: { scope: 'contacts:write' },
      schema: { tags, summary: 'Delete a contact permanently', params: idParams, response: { 200: deleted } },
    },
    async (req) => service.deleteContact(req.tenant, req.params.id),
  );

  registerContactTimelineRoutes(app);
  registerContactBulkRoutes(app);

  await app.register(importContactsRoute, { deps });
  await app.register(contactImportJobRoutes, { deps });
};
