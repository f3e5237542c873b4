import { z } from 'zod';
import { pageWindow, paginatedSchema, paginationSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted } from '../../platform/http/schemas.js';
import * as comments from './comments.js';
import { tags } from './route-docs.js';
import { comment, commentInput, commentItemParams, commentParams, commentUpdateInput } from './schema.js';

/** The comments (and history) of a card. */
export function registerCommentRoutes(app: RouteApp) {
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
}
