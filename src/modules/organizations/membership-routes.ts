import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { membership, membershipUpdate } from './schema.js';
import * as service from './service.js';

/** The members of the current organization: list, read one, change a role, remove. */
export function registerMembershipRoutes(app: RouteApp) {
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
}
