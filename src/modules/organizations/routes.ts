import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  membership,
  membershipUpdate,
  organization,
  organizationInput,
  organizationUpdate,
} from './schema.js';
import * as service from './service.js';

const tags = ['Organizations'];

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

  app.get(
    '/memberships',
    {
      config: { scope: 'members:read' },
      schema: {
        tags,
        summary: 'Members of the organization',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(membership) },
      },
    },
    async (req) => service.listMemberships(req.tenant, req.query),
  );

  app.get(
    '/memberships/:id',
    {
      config: { scope: 'members:read' },
      schema: { tags, summary: 'One membership', params: idParams, response: { 200: membership } },
    },
    async (req) => service.getMembership(req.tenant, req.params.id),
  );

  app.put(
    '/memberships/:id',
    {
      config: { scope: 'members:write' },
      schema: {
        tags,
        summary: 'Change a member role (admin; owner role by owners)',
        params: idParams,
        body: dataBody(membershipUpdate),
        response: { 200: membership },
      },
    },
    async (req) => service.changeRole(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/memberships/:id',
    {
      config: { scope: 'members:write' },
      schema: {
        tags,
        summary: 'Remove a member (admin, or oneself)',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.removeMember(req.tenant, req.params.id),
  );
};
