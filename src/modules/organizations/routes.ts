import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, idParams } from '../../platform/http/schemas.js';
import { registerMembershipRoutes } from './membership-routes.js';
import { tags } from './route-docs.js';
import { organization, organizationInput, organizationUpdate } from './schema.js';
import * as service from './service.js';

export const organizationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/organizations',
    {
      config: { scope: 'account:read', auth: 'user' },
      schema: {
        tags,
        summary: 'Organizations the user belongs to',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(organization) },
      },
    },
    async (req) => service.listOrganizations(deps, req.principal!, req.query),
  );

  app.post(
    '/organizations',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        summary: 'Create an organization; the caller becomes its owner',
        body: dataBody(organizationInput, [
          { name: 'Acme Vendas', slug: 'acme', timeZone: 'America/Sao_Paulo' },
        ]),
        response: { 201: organization },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await service.createOrganizationForUser(deps, req.principal!, req.body.data, req.idempotency)),
  );

  app.get(
    '/organizations/:id',
    {
      config: { scope: 'account:read', auth: 'user' },
      schema: {
        tags,
        summary: 'One organization the user belongs to, with its settings (time zone)',
        params: idParams,
        response: { 200: organization },
      },
    },
    async (req) => service.getOrganization(deps, req.principal!, req.params.id),
  );

  app.put(
    '/organizations/:id',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        summary: 'Change the name or settings (time zone) of an organization (owner or admin)',
        params: idParams,
        body: dataBody(organizationUpdate, [{ timeZone: 'Europe/Lisbon' }]),
        response: { 200: organization },
      },
    },
    async (req) => service.updateOrganization(deps, req.principal!, req.params.id, req.body.data),
  );

  registerMembershipRoutes(app);
};
