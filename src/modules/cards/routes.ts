import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { AppError } from '../../platform/http/errors.js';
import {
  listQueryShape,
  pageWindow,
  paginatedSchema,
  paginationSchema,
} from '../../platform/http/list-query.js';
import { firstFilePart } from '../../platform/http/multipart.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { dataBody, deleted } from '../../platform/http/schemas.js';
import { boardIdParams } from '../boards/index.js';
import * as comments from './comments.js';
import { submitPublicForm } from './public-form.js';
import * as report from './report.js';
import {
  aggregateQuery,
  aggregateResult,
  boardReport,
  card,
  cardCreateInput,
  cardList,
  cardListQuery,
  cardParams,
  cardUpdateInput,
  comment,
  commentInput,
  commentItemParams,
  commentParams,
  commentUpdateInput,
  fileRef,
  moveInput,
  publicFormInput,
  publicFormResult,
  reportQuery,
} from './schema.js';
import * as service from './service.js';
import { TRACKING_KEYS } from './table.js';
import { ACCEPTED_TYPES, MAX_UPLOAD_BYTES, openBoardFile, storePublicUpload } from './uploads.js';

const tags = ['Cards'];

export const cardRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/boards/:boardId/cards',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'Cards of a board, filtered, sorted and paginated, with CardStats in meta.stats',
        params: boardIdParams,
        querystring: cardListQuery,
        response: { 200: cardList },
      },
    },
    async (req) => service.listCards(req.tenant, req.params.boardId, req.query),
  );

  app.post(
    '/boards/:boardId/cards',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Create a card (in the entry phase unless currentPhase is given)',
        params: boardIdParams,
        body: dataBody(cardCreateInput, [
          {
            title: 'Acme Corp — 50 seats',
            value: 12500,
            dueDate: '2026-12-15T17:00:00.000Z',
            fields: { company: 'Acme Corp', 'deal-size': 12500 },
            tags: ['hot'],
          },
        ]),
        response: { 201: card },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createCard(req.tenant, req.params.boardId, req.body.data)),
  );

  app.get(
    '/boards/:boardId/cards/aggregate',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'count/sum/avg/min/max of the card value or a number field, optionally grouped',
        params: boardIdParams,
        querystring: aggregateQuery,
        response: { 200: aggregateResult },
      },
    },
    async (req) => report.aggregateCards(req.tenant, req.params.boardId, req.query),
  );

  app.get(
    '/boards/:boardId/cards/:id',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'One card',
        params: cardParams,
        querystring: z.strictObject({ populate: listQueryShape.populate }),
        response: { 200: card },
      },
    },
    async (req) => service.getCard(req.tenant, req.params.boardId, req.params.id, req.query.populate),
  );

  app.put(
    '/boards/:boardId/cards/:id',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Update a card (partial; `fields` merge by slug; `currentPhase` moves it)',
        params: cardParams,
        body: dataBody(cardUpdateInput, [{ value: 14000, currentPhase: 'proposal-sent' }]),
        response: { 200: card },
      },
    },
    async (req) => service.updateCard(req.tenant, req.params.boardId, req.params.id, req.body.data),
  );

  app.delete(
    '/boards/:boardId/cards/:id',
    {
      config: { scope: 'cards:write' },
      schema: { tags, summary: 'Delete a card permanently', params: cardParams, response: { 200: deleted } },
    },
    async (req) => service.deleteCard(req.tenant, deps.config, req.params.boardId, req.params.id),
  );

  app.post(
    '/boards/:boardId/cards/:id/move',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Move a card to another phase (422 when blocked or required fields are empty)',
        params: cardParams,
        body: moveInput.meta({ examples: [{ phase: 'proposal-sent' }] }),
        response: { 200: card },
      },
    },
    async (req) => service.moveCard(req.tenant, req.params.boardId, req.params.id, req.body.phase),
  );

  app.get(
    '/boards/:boardId/cards/:cardId/comments',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'Comments and history (system comments) of a card, oldest first',
        params: commentParams,
        querystring: z.strictObject({ pagination: paginationSchema.optional() }),
        response: { 200: paginatedSchema(comment) },
      },
    },
    async (req) =>
      comments.listComments(
        req.tenant,
        req.params.boardId,
        req.params.cardId,
        pageWindow(req.query.pagination),
      ),
  );

  app.post(
    '/boards/:boardId/cards/:cardId/comments',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Comment on a card',
        params: commentParams,
        body: dataBody(commentInput),
        response: { 201: comment },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await comments.addComment(req.tenant, req.params.boardId, req.params.cardId, req.body.data)),
  );

  app.put(
    '/boards/:boardId/cards/:cardId/comments/:id',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Edit one of your comments',
        params: commentItemParams,
        body: dataBody(commentUpdateInput),
        response: { 200: comment },
      },
    },
    async (req) =>
      comments.updateComment(req.tenant, req.params.boardId, req.params.cardId, req.params.id, req.body.data),
  );

  app.delete(
    '/boards/:boardId/cards/:cardId/comments/:id',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Delete a comment (its author, or an admin)',
        params: commentItemParams,
        response: { 200: deleted },
      },
    },
    async (req) => comments.deleteComment(req.tenant, req.params.boardId, req.params.cardId, req.params.id),
  );

  app.get(
    '/boards/:boardId/report',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'BoardReport: totals, per phase, assignee, tag and day, for cards created in the range',
        params: boardIdParams,
        querystring: reportQuery,
        response: { 200: boardReport },
      },
    },
    async (req) => report.boardReport(req.tenant, req.params.boardId, req.query),
  );

  app.post(
    '/boards/:boardId/public-form',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'public') },
      schema: {
        tags,
        summary:
          'Submit the entry form (public: no token, no tenant header); creates a card with creationSource form',
        security: [],
        params: boardIdParams,
        body: publicFormInput,
        response: { 201: publicFormResult },
      },
    },
    async (req, reply) => {
      const { fields, ...rest } = req.body;
      const tracking = Object.fromEntries(TRACKING_KEYS.flatMap((k) => (rest[k] ? [[k, rest[k]]] : [])));
      return reply.code(201).send(await submitPublicForm(deps.db, req.params.boardId, fields, tracking));
    },
  );

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
};
