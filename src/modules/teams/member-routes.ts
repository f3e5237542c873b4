import { paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { teamListQuery, teamMember, teamMemberInput, teamMemberParams } from './schema.js';
import * as service from './service.js';

/** The members of a team: list, add, read one, remove. */
export function registerTeamMemberRoutes(app: RouteApp) {
  app.get(
    '/teams/:id/members',
    {
      config: { scope: 'teams:read' },
      schema: {
        tags,
        summary: 'Members of a team',
        params: idParams,
        querystring: teamListQuery,
        response: { 200: paginatedSchema(teamMember) },
      },
    },
    async (req) => service.listMembers(req.tenant, req.params.id, req.query),
  );

  app.post(
    '/teams/:id/members',
    {
      config: { scope: 'teams:write' },
      schema: {
        tags,
        summary: 'Add a member to a team (admin)',
        params: idParams,
        body: dataBody(teamMemberInput),
        response: { 201: teamMember },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.addMember(req.tenant, req.params.id, req.body.data.membership)),
  );

  app.get(
    '/teams/:id/members/:membershipId',
    {
      config: { scope: 'teams:read' },
      schema: {
        tags,
        summary: 'One member of a team',
        params: teamMemberParams,
        response: { 200: teamMember },
      },
    },
    async (req) => service.getMember(req.tenant, req.params.id, req.params.membershipId),
  );

  app.delete(
    '/teams/:id/members/:membershipId',
    {
      config: { scope: 'teams:write' },
      schema: {
        tags,
        summary: 'Remove a member from a team (admin)',
        params: teamMemberParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.removeMember(req.tenant, req.params.id, req.params.membershipId),
  );
}
