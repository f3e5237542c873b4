import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { idParams } from '../../platform/http/schemas.js';
import { registerPixelWriteRoutes } from './pixel-write-routes.js';
import { admins, tags } from './route-docs.js';
import { conversionEvent, eventListQuery, pixel, pixelListQuery, verifyResult } from './schema.js';
import * as service from './service.js';

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

  registerPixelWriteRoutes(app, deps);

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
