import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { dataBody, idParams } from '../../platform/http/schemas.js';
import { confirmation, confirmationInput, redeemInput, redeemResult } from './schema.js';
import * as service from './service.js';

const tags = ['Agent confirmations'];

/**
 * Human confirmation of an agent's writes (docs/mcp.md): the tool server asks with the member's API token, the
 * member decides in the web application (signed in), the tool server redeems the approval once.
 */
export const agentConfirmationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.post(
    '/agent-confirmations',
    {
      config: { scope: 'account:write' },
      schema: {
        tags,
        summary: 'Ask the person to approve an agent’s call',
        description:
          'The agent tool server asks, with the member’s credentials, for one call (tool + exact arguments); the ' +
          'answer’s `url` is the web application page where the member, signed in, approves or declines. Only ' +
          'that member sees it.',
        body: dataBody(confirmationInput),
        response: { 201: confirmation },
      },
    },
    async (req, reply) => reply.code(201).send(await service.requestConfirmation(req.tenant, req.body.data)),
  );

  app.get(
    '/agent-confirmations/:id',
    {
      config: { scope: 'account:read' },
      schema: {
        tags,
        summary: 'One of your confirmation requests',
        description: 'Its status: `pending`, `approved`, `declined`, `used` or `expired`.',
        params: idParams,
        response: { 200: confirmation },
      },
    },
    async (req) => service.getConfirmation(req.tenant, req.params.id),
  );

  for (const [action, decision] of [
    ['approve', 'approved'],
    ['decline', 'declined'],
  ] as const)
    app.post(
      `/agent-confirmations/:id/${action}`,
      {
        config: { scope: 'account:write' },
        schema: {
          tags,
          summary: action === 'approve' ? 'Approve an agent’s call' : 'Decline an agent’s call',
          description:
            'Only the member it was asked of, signed in with a session (the web application): an API token gets ' +
            '403, so an agent cannot approve its own call. A pending request only (409 otherwise).',
          params: idParams,
          response: { 200: confirmation },
        },
      },
      async (req) => service.decideConfirmation(req.tenant, req.principal!.via, req.params.id, decision),
    );

  app.post(
    '/agent-confirmations/:id/redeem',
    {
      config: { scope: 'account:write' },
      schema: {
        tags,
        summary: 'Spend an approval before making the call',
        description:
          'The tool server, before making the approved call: `redeemed: true` once, for exactly the tool and ' +
          'arguments that were approved; otherwise `reason` says why (pending, declined, used, expired, mismatch).',
        params: idParams,
        body: dataBody(redeemInput),
        response: { 200: redeemResult },
      },
    },
    async (req) => service.redeemConfirmation(req.tenant, req.params.id, req.body.data),
  );
};
