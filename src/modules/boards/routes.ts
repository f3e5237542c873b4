import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema, paginationSchema } from '../../platform/http/list-query.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  board,
  boardCreateInput,
  boardIdParams,
  boardItemParams,
  boardTemplate,
  boardUpdateInput,
  conditionCreateInput,
  conditionUpdateInput,
  fieldCondition,
  fieldCreateInput,
  fieldDefinition,
  fieldUpdateInput,
  phase,
  phaseCreateInput,
  phaseUpdateInput,
  publicForm,
  tag,
  tagInput,
  tagUpdateInput,
} from './schema.js';
import * as service from './service.js';
import * as structure from './structure.js';

const tags = ['Boards'];
const pageQuery = z.strictObject({ pagination: paginationSchema.optional() });

export const boardRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/boards',
    {
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
      schema: {
        tags,
        summary: 'Create a board (admin), optionally with phases, fields and tags, or from a template',
        body: dataBody(boardCreateInput),
        response: { 201: board },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createBoard(req.tenant, req.body.data)),
  );

  app.get(
    '/boards/:id',
    { schema: { tags, summary: 'One board with its structure', params: idParams, response: { 200: board } } },
    async (req) => service.getBoard(req.tenant, req.params.id),
  );

  app.put(
    '/boards/:id',
    {
      schema: {
        tags,
        summary: 'Update a board, its settings and people (admin or board owner)',
        params: idParams,
        body: dataBody(boardUpdateInput),
        response: { 200: board },
      },
    },
    async (req) => service.updateBoard(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/boards/:id',
    {
      schema: {
        tags,
        summary: 'Delete a board with its phases, fields, tags and cards (admin)',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteBoard(req.tenant, req.params.id),
  );

  app.get(
    '/board-templates',
    {
      schema: {
        tags,
        summary: 'The board template catalogue',
        querystring: pageQuery,
        response: { 200: paginatedSchema(boardTemplate) },
      },
    },
    async (req) => service.listTemplates(req.query),
  );

  app.get(
    '/board-templates/:id',
    {
      schema: {
        tags,
        summary: 'One board template',
        params: z.object({ id: z.string().min(1).max(64).describe('template id, e.g. sales-funnel') }),
        response: { 200: boardTemplate },
      },
    },
    async (req) => service.getTemplate(req.params.id),
  );

  app.get(
    '/boards/:boardId/public-form',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'public') },
      schema: {
        tags,
        summary: 'The entry form of an active board (public: no token, no tenant header)',
        security: [],
        params: boardIdParams,
        response: { 200: publicForm },
      },
    },
    async (req) => service.getPublicForm(deps.db, req.params.boardId),
  );

  // Structure sub-resources: the same five routes for phases, fields, tags and field conditions.
  const sub = [
    {
      path: 'phases',
      name: 'phase',
      schema: phase,
      create: phaseCreateInput,
      update: phaseUpdateInput,
      list: pageQuery,
      svc: {
        list: structure.listPhases,
        get: structure.getPhase,
        create: structure.createPhase,
        update: structure.updatePhase,
        remove: structure.deletePhase,
      },
    },
    {
      path: 'fields',
      name: 'field definition',
      schema: fieldDefinition,
      create: fieldCreateInput,
      update: fieldUpdateInput,
      list: pageQuery.extend({
        phase: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .describe('only the fields of this phase (documentId or slug)'),
      }),
      svc: {
        list: structure.listFields,
        get: structure.getField,
        create: structure.createField,
        update: structure.updateField,
        remove: structure.deleteField,
      },
    },
    {
      path: 'tags',
      name: 'tag',
      schema: tag,
      create: tagInput,
      update: tagUpdateInput,
      list: pageQuery,
      svc: {
        list: structure.listTags,
        get: structure.getTag,
        create: structure.createTag,
        update: structure.updateTag,
        remove: structure.deleteTag,
      },
    },
    {
      path: 'field-conditions',
      name: 'field condition',
      schema: fieldCondition,
      create: conditionCreateInput,
      update: conditionUpdateInput,
      list: pageQuery,
      svc: {
        list: structure.listConditions,
        get: structure.getCondition,
        create: structure.createCondition,
        update: structure.updateCondition,
        remove: structure.deleteCondition,
      },
    },
  ] as const;

  for (const r of sub) {
    const base = `/boards/:boardId/${r.path}`;
    // The tuple above keeps each entry's own types; the loop body sees their union.
    const svc = r.svc as unknown as {
      list: (ctx: unknown, boardId: string, q: unknown) => Promise<any>;
      get: (ctx: unknown, boardId: string, id: string) => Promise<any>;
      create: (ctx: unknown, boardId: string, input: unknown) => Promise<any>;
      update: (ctx: unknown, boardId: string, id: string, input: unknown) => Promise<any>;
      remove: (ctx: unknown, boardId: string, id: string) => Promise<any>;
    };
    app.get(
      base,
      {
        schema: {
          tags,
          summary: `The ${r.name}s of a board`,
          params: boardIdParams,
          querystring: r.list,
          response: { 200: paginatedSchema(r.schema) },
        },
      },
      async (req) => svc.list(req.tenant, req.params.boardId, req.query),
    );
    app.get(
      `${base}/:id`,
      {
        schema: {
          tags,
          summary: `One ${r.name} of a board`,
          params: boardItemParams,
          response: { 200: r.schema },
        },
      },
      async (req) => svc.get(req.tenant, req.params.boardId, req.params.id),
    );
    app.post(
      base,
      {
        schema: {
          tags,
          summary: `Add a ${r.name} (admin or board owner)`,
          params: boardIdParams,
          body: dataBody(r.create),
          response: { 201: r.schema },
        },
      },
      async (req, reply) =>
        reply
          .code(201)
          .send(await svc.create(req.tenant, req.params.boardId, (req.body as { data: unknown }).data)),
    );
    app.put(
      `${base}/:id`,
      {
        schema: {
          tags,
          summary: `Change a ${r.name} (admin or board owner)`,
          params: boardItemParams,
          body: dataBody(r.update),
          response: { 200: r.schema },
        },
      },
      async (req) =>
        svc.update(req.tenant, req.params.boardId, req.params.id, (req.body as { data: unknown }).data),
    );
    app.delete(
      `${base}/:id`,
      {
        schema: {
          tags,
          summary: `Delete a ${r.name} (admin or board owner)`,
          params: boardItemParams,
          response: { 200: deleted },
        },
      },
      async (req) => svc.remove(req.tenant, req.params.boardId, req.params.id),
    );
  }
};
