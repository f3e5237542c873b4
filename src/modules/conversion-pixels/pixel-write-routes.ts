import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { admins, tags } from './route-docs.js';
import { pixel, pixelInput, pixelUpdate } from './schema.js';
import * as service from './service.js';

/** Creating and changing conversion pixels: create, update, delete. */
export function registerPixelWriteRoutes(app: RouteApp, deps: AppDeps) {
  app.post(
    '/conversion-pixels',
    {
      config: { scope: 'conversions:write' },
      schema: {
        tags,
        summary: 'Connect a Conversions API pixel to a board',
        description:
          'BETA: Each card of the board that meets the trigger (`won`, or `{ phase }`) is sent once to the ' +
          'Conversions API (event_id = card + trigger; e-mail and phone normalised and SHA-256 hashed); the ' +
          'access token is write-only (stored encrypted). ' +
          admins,
        body: dataBody(pixelInput, [
          {
            name: 'Ads pixel',
            pixelId: '123456789012345',
            accessToken: 'EAAB…',
            board: 'k3v9x0c1q2w3e4r5t6y7u8i9',
            trigger: 'won',
          },
        ]),
        response: { 201: pixel },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createPixel(deps, req.tenant, req.body.data)),
  );

  app.put(
    '/conversion-pixels/:id',
    {
      config: { scope: 'conversions:write' },
      schema: {
        tags,
        summary: 'Change a conversion pixel',
        description: `${admins} Fields not sent keep their value; a new accessToken replaces the stored one.`,
        params: idParams,
        body: dataBody(pixelUpdate, [{ enabled: false }]),
        response: { 200: pixel },
      },
    },
    async (req) => service.updatePixel(deps, req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/conversion-pixels/:id',
    {
      config: { scope: 'conversions:write' },
      schema: {
        tags,
        summary: 'Delete a conversion pixel and its event log',
        description: admins,
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deletePixel(req.tenant, req.params.id),
  );
}
