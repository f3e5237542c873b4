import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { registerInviteeRoutes } from './invitee-routes.js';
import { tags } from './route-docs.js';
import { invitation, invitationInput } from './schema.js';
import * as service from './service.js';

export const invitationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/memberships',
    {
      config: { scope: 'members:write' },
      schema: {
        tags,
        summary: 'Invite someone by e-mail (admin; the owner role by owners)',
        description:
          'Sends an e-mail with a single-use link valid 7 days; the person becomes a member only by accepting it ' +
          '(POST /invitations/{token}/accept, signed in with the invited address). The answer is the same whether ' +
          'or not the address has an account or is already a member. Inviting a pending address again renews its ' +
          'invitation (new link, role and expiry) instead of adding another.',
        body: dataBody(invitationInput),
        response: { 202: invitation },
      },
    },
    async (req, reply) => reply.code(202).send(await service.inviteMember(deps, req.tenant, req.body.data)),
  );

  app.get(
    '/invitations',
    {
      config: { scope: 'members:read' },
      schema: {
        tags,
        summary: 'Pending invitations, expired ones included (admin)',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(invitation) },
      },
    },
    async (req) => service.listInvitations(req.tenant, req.query),
  );

  app.delete(
    '/invitations/:id',
    {
      config: { scope: 'members:write' },
      schema: {
        tags,
        summary: 'Revoke a pending invitation (admin): its link stops working',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.revokeInvitation(req.tenant, req.params.id),
  );

  registerInviteeRoutes(app, deps);
};
