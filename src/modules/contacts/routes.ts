import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { contactImportJobRoutes } from './import-jobs.js';
import { importContactsRoute } from './import-routes.js';
import {
  activityListQuery,
  bulkDeleteInput,
  bulkResult,
  bulkUpdateInput,
  callInput,
  contact,
  contactActivity,
  contactCreate,
  contactListQuery,
  contactUpdate,
  mergeInput,
  mergeResult,
  noteInput,
} from './schema.js';
import * as service from './service.js';

const tags = ['Contacts'];

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

  app.get(
    '/contacts/:id/activities',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        summary: 'The contact timeline, newest first',
        params: idParams,
        querystring: activityListQuery,
        response: { 200: paginatedSchema(contactActivity) },
      },
    },
    async (req) => service.listActivities(req.tenant, req.params.id, req.query),
  );

  app.post(
    '/contacts/:id/notes',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Add a note to the timeline (note_added)',
        params: idParams,
        body: dataBody(noteInput),
        response: { 201: contactActivity },
      },
    },
    async (req, reply) =>
      reply.code(201).send(
        await service.addActivity(req.tenant, req.params.id, {
          ...req.body.data,
          activityType: 'note_added',
        }),
      ),
  );

  app.post(
    '/contacts/:id/activities',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Log a call (call_completed or call_attempted)',
        params: idParams,
        body: dataBody(callInput),
        response: { 201: contactActivity },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.addActivity(req.tenant, req.params.id, req.body.data)),
  );

  app.post(
    '/contacts/bulk-delete',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Delete many contacts by ids or by filters (admin)',
        body: bulkDeleteInput,
        response: { 200: bulkResult },
      },
    },
    async (req) => service.bulkDelete(req.tenant, req.body),
  );

  app.post(
    '/contacts/bulk-update',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Set owner, team, type, location or custom fields on many contacts',
        body: bulkUpdateInput,
        response: { 200: bulkResult },
      },
    },
    async (req) => service.bulkUpdate(req.tenant, req.body, req.body.data),
  );

  app.post(
    '/contacts/merge',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Merge contacts into a survivor (timeline, cards and conversations move to it)',
        body: mergeInput,
        response: { 200: mergeResult },
      },
    },
    async (req) => service.mergeContacts(req.tenant, req.body.survivor, req.body.merged),
  );

  await app.register(importContactsRoute, { deps });
  await app.register(contactImportJobRoutes, { deps });
};
