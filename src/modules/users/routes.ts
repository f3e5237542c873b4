import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { deleted, idParams } from '../../platform/http/schemas.js';
import {
  authResult,
  createdToken,
  currentCredential,
  generateTokenInput,
  loginInput,
  me,
  registerInput,
  tokenInfo,
  updateMeInput,
} from './schema.js';
import * as service from './service.js';

const tags = ['Authentication'];

export const userRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/auth/local',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'login') },
      schema: {
        tags,
        summary: 'Log in: a session JWT (2 h)',
        body: loginInput,
        response: { 200: authResult },
      },
    },
    async (req) => service.login(deps, req.body),
  );

  app.post(
    '/auth/local/register',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'login') },
      schema: { tags, summary: 'Sign up a user', body: registerInput, response: { 200: authResult } },
    },
    async (req) => service.register(deps, req.body),
  );

  app.get(
    '/users/me',
    {
      config: { scope: 'account:read', auth: 'user' },
      schema: { tags, summary: 'The authenticated user and its organizations', response: { 200: me } },
    },
    async (req) => service.getMe(deps, req.principal!),
  );

  app.put(
    '/users/me',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        operationId: 'updateCurrentUser',
        summary: "Edit the authenticated user's profile (display name)",
        description:
          'Sets the display name shown instead of the username in every MembershipRef (`user.name`): trimmed, 1 to 120 characters; `null` clears it. The body is plain, like sign-up: `{ "name": "Carla Mendes" }`.',
        body: updateMeInput,
        response: { 200: me },
      },
    },
    async (req) => service.updateMe(deps, req.principal!, req.body),
  );

  app.post(
    '/users/generate-token',
    {
      config: {
        scope: 'account:write',
        auth: 'user',
        ...strictBucket(deps.config, 'token'),
      },
      schema: {
        tags,
        summary: 'Create a long-lived API token (needs a session JWT; the token is shown once)',
        body: generateTokenInput,
        response: { 201: createdToken },
      },
    },
    async (req, reply) => reply.code(201).send(await service.generateToken(deps, req.principal!, req.body)),
  );

  app.get(
    '/users/tokens',
    {
      config: { scope: 'account:read', auth: 'user' },
      schema: {
        tags,
        summary: 'The API tokens of the user (never the secrets)',
        response: { 200: z.object({ data: z.array(tokenInfo) }) },
      },
    },
    async (req) => ({ data: await service.listTokens(deps, req.principal!) }),
  );

  app.get(
    '/users/tokens/current',
    {
      // Any bearer may read its own scopes, whatever they are: an empty list needs none.
      config: { scope: [], auth: 'user' },
      schema: {
        tags,
        summary: 'The scopes of the credential that makes this request',
        description:
          'Answers for the bearer itself, an API token or a session: its scopes (null: all of the role). Agent servers (crm-mcp) list only the tools a token may use.',
        response: { 200: currentCredential },
      },
    },
    async (req) => ({ via: req.principal!.via, scopes: req.principal!.scopes }),
  );

  app.delete(
    '/users/tokens/:id',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: { tags, summary: 'Revoke an API token', params: idParams, response: { 200: deleted } },
    },
    async (req) => service.revokeToken(deps, req.principal!, req.params.id),
  );
};
