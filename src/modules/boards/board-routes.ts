import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { board, boardCreateInput, boardUpdateInput } from './schema.js';
import * as service from './service.js';

/** The boards: list, create. */
export function registerBoardCollectionRoutes(app: RouteApp) {
  app.get(
    '/boards',
    {
      config: { scope: 'boards:read' },
      schema: {
        tags,
        summary: 'Boards the caller can see (admins: all)',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(board) },
      },
    },
    async (req) => service.listBoards(req.tenant, req.query),
  );

  app.post(
    '/boards',
    {
      config: { scope: 'boards:write' },
      schema: {
        tags,
        summary: 'Create a board (admin), optionally with phases, fields and tags, or from a template',
        body: dataBody(boardCreateInput, [
          {
            name: 'Sales pipeline',
            boardType: 'kanban',
            color: '#2563eb',
            phases: [
              {
                name: 'New lead',
                fields: [
                  { label: 'Company', type: 'text', required: true },
                  { label: 'Deal size', type: 'currency' },
                ],
              },
              { name: 'Proposal sent' },
              { name: 'Won' },
            ],
            tags: [{ name: 'Hot', color: '#dc2626' }],
          },
        ]),
        response: { 201: board },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createBoard(req.tenant, req.body.data)),
  );
}

/** One board: read, update, delete. */
export function registerBoardItemRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/boards/:id',
    {
      config: { scope: 'boards:read' },
      schema: { tags, summary: 'One board with its structure', params: idParams, response: { 200: board } },
    },
    async (req) => service.getBoard(req.tenant, req.params.id),
  );

  app.put(
    '/boards/:id',
    {
      config: { scope: 'boards:write' },
      schema: {
        tags,
        summary: 'Update a board, its settings and people (admin or board owner)',
        params: idParams,
        body: dataBody(boardUpdateInput, [{ name: 'Sales pipeline 2027', color: '#16a34a' }]),
        response: { 200: board },
      },
    },
    async (req) => service.updateBoard(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/boards/:id',
    {
      config: { scope: 'boards:write' },
      schema: {
        tags,
        summary: 'Delete a board with its phases, fields, tags and cards (admin)',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteBoard(req.tenant, deps.config, req.params.id),
  );
}
