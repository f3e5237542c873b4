import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  team,
  teamInput,
  teamListQuery,
  teamMember,
  teamMemberInput,
  teamMemberParams,
  teamUpdate,
} from './schema.js';
import * as service from './service.js';

const tags = ['Teams'];

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
};
