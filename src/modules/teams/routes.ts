import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { registerTeamMemberRoutes } from './member-routes.js';
import { tags } from './route-docs.js';
import { team, teamInput, teamListQuery, teamUpdate } from './schema.js';
import * as service from './service.js';

export const teamRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/teams',
    {
      config: { scope: 'teams:read' },
      schema: {
        tags,
        summary: 'List teams',
        querystring: teamListQuery,
        response: { 200: paginatedSchema(team) },
      },
    },
    async (req) => service.listTeams(req.tenant, req.query),
  );

  app.post(
    '/teams',
    {
      config: { scope: 'teams:write' },
      schema: { tags, summary: 'Create a team (admin)', body: dataBody(teamInput), response: { 201: team } },
    },
    async (req, reply) => reply.code(201).send(await service.createTeam(req.tenant, req.body.data)),
  );

  app.get(
    '/teams/:id',
    {
      config: { scope: 'teams:read' },
      schema: { tags, summary: 'One team', params: idParams, response: { 200: team } },
    },
    async (req) => service.getTeam(req.tenant, req.params.id),
  );

  app.put(
    '/teams/:id',
    {
      config: { scope: 'teams:write' },
      schema: {
        tags,
        summary: 'Rename or describe a team (admin)',
        params: idParams,
        body: dataBody(teamUpdate),
        response: { 200: team },
      },
    },
    async (req) => service.updateTeam(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/teams/:id',
    {
      config: { scope: 'teams:write' },
      schema: {
        tags,
        summary: 'Delete a team (admin); its contacts keep no team',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteTeam(req.tenant, req.params.id),
  );

  registerTeamMemberRoutes(app);
};
