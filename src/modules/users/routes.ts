import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { deleted, idParams } from '../../platform/http/schemas.js';
import * as passwords from './passwords.js';
import {
  authResult,
  changePasswordInput,
  createdToken,
  currentCredential,
  forgotPasswordInput,
  generateTokenInput,
  loginInput,
  me,
  registerInput,
  resetPasswordInput,
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

  app.post(
    '/auth/forgot-password',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'login') },
      schema: {
        tags,
        summary: 'Ask for a password reset link by e-mail',
        description: `When the address is an account's, e-mails it a link to choose a new password (valid ${passwords.PASSWORD_RESET_MINUTES} minutes, once; a newer request replaces it). The answer is the same whether or not the address is registered. Rate bucket \`login\`.`,
        body: forgotPasswordInput,
        response: { 200: z.object({ ok: z.literal(true) }) },
      },
    },
    async (req) => passwords.forgotPassword(deps, req.body),
  );

  app.post(
    '/auth/reset-password',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'login') },
      schema: {
        tags,
        summary: 'Set a new password with the e-mailed code; a fresh session JWT',
        description:
          'The code of the link `POST /auth/forgot-password` e-mailed, the new password (8 to 200 characters) and the same again in `passwordConfirmation`. Every session issued before is ended (API tokens stay). 400 when the passwords differ or the code is unknown, used or expired.',
        body: resetPasswordInput,
        response: { 200: authResult },
      },
    },
    async (req) => passwords.resetPassword(deps, req.body),
  );

  app.post(
    '/auth/change-password',
    {
      config: { scope: 'account:write', auth: 'user', ...strictBucket(deps.config, 'login') },
      schema: {
        tags,
        summary: 'Change the password (with the current one); a fresh session JWT',
        description:
          'With a session JWT: `currentPassword`, the new `password` (8 to 200 characters) and the same again in `passwordConfirmation`. Every other session issued before is ended; the answer carries a new one (API tokens stay). 400 when the current password is wrong or the passwords differ; 403 with an API or OAuth token.',
        body: changePasswordInput,
        response: { 200: authResult },
      },
    },
    async (req) => passwords.changePassword(deps, req.principal!, req.body),
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
        summary: "Edit the authenticated user's profile (display name, mention e-mails)",
        description:
          'Sets the display name shown instead of the username in every MembershipRef (`user.name`): trimmed, 1 to 120 characters; `null` clears it. `mentionEmails: false` stops the e-mail a comment\'s mention sends (the notification stays). Fields not sent keep their value; send at least one. The body is plain, like sign-up: `{ "name": "Carla Mendes" }`.',
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
