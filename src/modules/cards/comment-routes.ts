import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { pageWindow, paginatedSchema, paginationSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted } from '../../platform/http/schemas.js';
import * as comments from './comments.js';
import { tags } from './route-docs.js';
import { comment, commentInput, commentItemParams, commentParams, commentUpdateInput } from './schema.js';

/** The comments (and history) of a card. */
export function registerCommentRoutes(app: RouteApp, deps: AppDeps) {
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
        description:
          'Each mentioned member who may read the card (the author excepted) gets a `comment_mention` notification and, unless blocked or they turned mention e-mails off (`mentionEmails` of PUT /users/me), an e-mail naming the author and the card, with its link in the web app (not the comment’s text).',
        params: commentParams,
        body: dataBody(commentInput),
        response: { 201: comment },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await comments.addComment(deps, req.tenant, req.params.boardId, req.params.cardId, req.body.data),
        ),
  );

  app.put(
    '/boards/:boardId/cards/:cardId/comments/:id',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Edit one of your comments',
        description:
          'Only members not notified of this comment before (those the edit adds to `mentions`, or a member mentioned before who can read the card only now) are notified and e-mailed; an edited text rewrites the excerpt of the notifications the comment made.',
        params: commentItemParams,
        body: dataBody(commentUpdateInput),
        response: { 200: comment },
      },
    },
    async (req) =>
      comments.updateComment(
        deps,
        req.tenant,
        req.params.boardId,
        req.params.cardId,
        req.params.id,
        req.body.data,
      ),
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
