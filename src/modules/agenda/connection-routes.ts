import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import * as connections from './connections.js';
import { beta, read, tags, write, writeLive } from './route-docs.js';
import { connection, connectionInput } from './schema.js';

/** The caller's calendar connection: list, connect, disconnect. */
export function registerConnectionRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/calendar-connections',
    {
      config: read,
      schema: {
        tags,
        summary: "The caller's calendar connection (0 or 1)",
        description: beta('Lists your own CalDAV connection; nobody sees another person’s, admins included.'),
        response: { 200: z.object({ data: z.array(connection) }) },
      },
    },
    async (req) => connections.listConnections(req.tenant),
  );

  app.post(
    '/calendar-connections',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Connect your calendar (CalDAV)',
        description: beta(
          'Runs CalDAV discovery (well-known URL, principal, calendar home) with the credentials before saving; the password is stored encrypted and never returned. One per user: 409 when you already have one. Wrong credentials → 422; an unreachable server → 502; a private or loopback address → 400.',
        ),
        body: dataBody(connectionInput, [
          {
            provider: 'caldav',
            url: 'https://caldav.fastmail.com/',
            username: 'ana@example.com',
            password: 'app-password',
          },
        ]),
        response: { 201: connection },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await connections.createConnection(deps, req.tenant, req.body.data)),
  );

  app.delete(
    '/calendar-connections/:id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Disconnect your calendar',
        description: beta('Removes the connection and its stored password; meetings already made stay.'),
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => connections.deleteConnection(req.tenant, req.params.id),
  );
}
