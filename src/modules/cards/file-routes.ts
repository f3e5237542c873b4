import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import { firstFilePart } from '../../platform/http/multipart.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { boardIdParams } from '../boards/index.js';
import { tags } from './route-docs.js';
import { fileRef } from './schema.js';
import { ACCEPTED_TYPES, MAX_UPLOAD_BYTES, openBoardFile, storePublicUpload } from './uploads.js';

/** The board's files: download, and the public upload for a file field. */
export async function registerFileRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/boards/:boardId/files/:id',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'Download a file uploaded to the board (as an attachment)',
        params: boardIdParams.extend({ id: z.string().min(1).max(64).describe('file documentId') }),
        response: { 200: z.string().describe('the file content') },
      },
    },
    async (req, reply) => {
      const file = await openBoardFile(req.tenant, deps.config, req.params.boardId, req.params.id);
      return (
        reply
          .type(file.mimeType)
          .header('content-length', file.size)
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`)
          .header('x-content-type-options', 'nosniff')
          // A stream bypasses the serializer; the schema documents the body for OpenAPI.
          .send(file.stream as unknown as string)
      );
    },
  );

  // Multipart is parsed only here (its own encapsulated scope), for the public upload.
  await app.register(async (scope) => {
    const upload = scope.withTypeProvider<ZodTypeProvider>();
    await upload.register(multipart, {
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 0, parts: 2 },
    });
    upload.post(
      '/boards/:boardId/public-upload',
      {
        config: { auth: 'public', ...strictBucket(deps.config, 'public') },
        schema: {
          tags,
          summary: `Upload a file for a file field (public; multipart part \`file\`; at most ${MAX_UPLOAD_BYTES / 1048576} MB; ${ACCEPTED_TYPES.join(', ')})`,
          security: [],
          consumes: ['multipart/form-data'],
          params: boardIdParams,
          response: { 201: fileRef },
        },
      },
      async (req, reply) => {
        if (!req.isMultipart())
          throw new AppError('UnsupportedMediaTypeError', 'Send multipart/form-data with a part named file');
        const part = await firstFilePart(req);
        if (part?.fieldname !== 'file') {
          part?.file.resume();
          throw new AppError('ValidationError', 'The multipart part must be named file', {
            errors: [{ path: ['file'], message: 'is required' }],
          });
        }
        return reply.code(201).send(await storePublicUpload(deps.db, deps.config, req.params.boardId, part));
      },
    );
  });
}
