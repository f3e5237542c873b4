import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { asset, assetInput, assetParams, MAX_ASSET_BYTES } from './schema.js';
import * as service from './service.js';

/** The images templates show: list, upload, delete, and the public URL sent messages load them from. */
export function registerAssetRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/email-assets',
    {
      config: { scope: 'email_templates:read' },
      schema: {
        tags,
        summary: 'List e-mail images',
        description: 'BETA: images uploaded for templates, with their public URLs.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(asset) },
      },
    },
    async (req) => service.listAssets(req.tenant, deps.config, req.query),
  );

  app.post(
    '/email-assets',
    {
      config: { scope: 'email_templates:write' },
      bodyLimit: Math.ceil((MAX_ASSET_BYTES * 4) / 3) + 4096,
      schema: {
        tags,
        summary: 'Upload an image for e-mail templates (admin)',
        description: `BETA: PNG, JPEG, GIF or WebP (checked on the bytes), at most ${MAX_ASSET_BYTES / 1048576} MB; answers a stable public URL for the template HTML.`,
        body: dataBody(assetInput, [
          {
            filename: 'logo.png',
            mimeType: 'image/png',
            base64:
              'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5ErkJggg==',
          },
        ]),
        response: { 201: asset },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.uploadAsset(req.tenant, deps.config, req.body.data)),
  );

  app.delete(
    '/email-assets/:id',
    {
      config: { scope: 'email_templates:write' },
      schema: {
        tags,
        summary: 'Delete an e-mail image (admin)',
        description: 'BETA: its public URL stops working; messages already sent show a broken image.',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteAsset(req.tenant, req.params.id),
  );

  app.get(
    '/email-assets/:id/:filename',
    {
      // The general per-IP limit only: one office's mail clients all fetch the same image.
      config: { auth: 'public' },
      schema: {
        tags,
        summary: 'An e-mail image (public: what sent messages show)',
        description: 'BETA: no token; cached by mail clients.',
        security: [],
        params: assetParams,
        produces: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
        response: { 200: z.any().describe('The image') },
      },
    },
    async (req, reply) => {
      const a = await service.assetForPublic(deps.db, req.params.id, req.params.filename);
      return reply
        .type(a.mimeType)
        .header('cache-control', 'public, max-age=86400, immutable')
        .header('etag', `"${a.sha256}"`)
        .header('x-content-type-options', 'nosniff')
        .send(a.content);
    },
  );
}
