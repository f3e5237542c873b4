import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  conversionEvent,
  eventListQuery,
  pixel,
  pixelInput,
  pixelListQuery,
  pixelUpdate,
  verifyResult,
} from './schema.js';
import * as service from './service.js';

const tags = ['Conversion pixels'];
const admins = 'BETA: organization admins only (plan feature `conversions`).';

export const conversionPixelRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/conversion-pixels',
    {
      config: { scope: 'conversions:read' },
      schema: {
        tags,
        summary: 'List conversion pixels',
        description: admins,
        querystring: pixelListQuery,
        response: { 200: paginatedSchema(pixel) },
      },
    },
    async (req) => service.listPixels(req.tenant, req.query),
  );

  app.get(
    '/conversion-pixels/:id',
    {
      config: { scope: 'conversions:read' },
      schema: {
        tags,
        summary: 'One conversion pixel',
        description: admins,
        params: idParams,
        response: { 200: pixel },
      },
    },
    async (req) => service.getPixel(req.tenant, req.params.id),
  );

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

  app.post(
    '/conversion-pixels/:id/verify',
    {
      // Sends a test event to the provider: no dry run (docs/dry-run.md).
      config: { scope: 'conversions:write', dryRun: false },
      schema: {
        tags,
        summary: 'Send a test event to the pixel now',
        description: `${admins} Sent with a test_event_code; a provider failure is a 502 naming the provider.`,
        params: idParams,
        response: { 200: verifyResult },
      },
    },
    async (req) => service.verifyPixel(deps, req.tenant, req.params.id),
  );

  app.get(
    '/conversion-pixels/:id/events',
    {
      config: { scope: 'conversions:read' },
      schema: {
        tags,
        summary: 'The event log of a pixel, newest first',
        description: `${admins} Each event as sent (user data hashed), its status, attempts and the provider's answer.`,
        params: idParams,
        querystring: eventListQuery,
        response: { 200: paginatedSchema(conversionEvent) },
      },
    },
    async (req) => service.listEvents(req.tenant, req.params.id, req.query),
  );
};
