import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import { z } from 'zod';
import { type Paginated, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted } from '../../platform/http/schemas.js';
import type { TenantContext } from '../../platform/tenancy/context.js';
import * as fieldConditions from './field-conditions.js';
import { pageQuery, tags } from './route-docs.js';
import {
  boardIdParams,
  boardItemParams,
  conditionCreateInput,
  conditionUpdateInput,
  fieldCondition,
  fieldCreateInput,
  fieldDefinition,
  fieldUpdateInput,
  phase,
  phaseCreateInput,
  phaseUpdateInput,
  tag,
  tagInput,
  tagUpdateInput,
} from './schema.js';
import * as structure from './structure.js';

/** Structure sub-resources: the same five routes for phases, fields, tags and field conditions. */
export function registerStructureRoutes(app: RouteApp) {
  registerStructureResource(app, {
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
  });
  registerStructureResource(app, {
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
  });
  registerStructureResource(app, {
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
  });
  registerStructureResource(app, {
    path: 'field-conditions',
    name: 'field condition',
    schema: fieldCondition,
    create: conditionCreateInput,
    update: conditionUpdateInput,
    list: pageQuery,
    svc: {
      list: fieldConditions.listConditions,
      get: fieldConditions.getCondition,
      create: fieldConditions.createCondition,
      update: fieldConditions.updateCondition,
      remove: fieldConditions.deleteCondition,
    },
  });
}

type Removed = { documentId: string; deleted: true };

interface StructureResource<
  O extends z.ZodType,
  C extends z.ZodType,
  U extends z.ZodType,
  L extends z.ZodType,
> {
  path: string;
  name: string;
  schema: O;
  create: C;
  update: U;
  list: L;
  svc: {
    list(ctx: TenantContext, boardId: string, query: z.infer<L>): Promise<Paginated<z.infer<O>>>;
    get(ctx: TenantContext, boardId: string, id: string): Promise<z.infer<O>>;
    create(ctx: TenantContext, boardId: string, input: z.infer<C>): Promise<z.infer<O>>;
    update(ctx: TenantContext, boardId: string, id: string, input: z.infer<U>): Promise<z.infer<O>>;
    remove(ctx: TenantContext, boardId: string, id: string): Promise<Removed>;
  };
}

/** Widens a route schema so the generic helper below does not ask TypeScript to infer through it. */
const plain = (schema: FastifySchema & { tags: string[]; summary: string }) => schema;

/**
 * Registers the five routes of one structure resource. It takes the plain Fastify instance: the zod
 * type provider cannot infer through generic schemas, so params and bodies are typed by hand here
 * while validation and serialisation still run from the same zod schemas.
 */
function registerStructureResource<
  O extends z.ZodType,
  C extends z.ZodType,
  U extends z.ZodType,
  L extends z.ZodType,
>(app: FastifyInstance, r: StructureResource<O, C, U, L>) {
  const base = `/boards/:boardId/${r.path}`;
  const ids = (req: FastifyRequest) => req.params as z.infer<typeof boardItemParams>;
  app.get(
    base,
    {
      config: { scope: 'boards:read' },
      schema: plain({
        tags,
        summary: `The ${r.name}s of a board`,
        params: boardIdParams,
        querystring: r.list,
        response: { 200: paginatedSchema(r.schema) },
      }),
    },
    async (req) => r.svc.list(req.tenant, ids(req).boardId, req.query as z.infer<L>),
  );
  app.get(
    `${base}/:id`,
    {
      config: { scope: 'boards:read' },
      schema: plain({
        tags,
        summary: `One ${r.name} of a board`,
        params: boardItemParams,
        response: { 200: r.schema },
      }),
    },
    async (req) => r.svc.get(req.tenant, ids(req).boardId, ids(req).id),
  );
  app.post(
    base,
    {
      config: { scope: 'boards:write' },
      schema: plain({
        tags,
        summary: `Add a ${r.name} (admin or board owner)`,
        params: boardIdParams,
        body: dataBody(r.create),
        response: { 201: r.schema },
      }),
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await r.svc.create(req.tenant, ids(req).boardId, (req.body as { data: z.infer<C> }).data)),
  );
  app.put(
    `${base}/:id`,
    {
      config: { scope: 'boards:write' },
      schema: plain({
        tags,
        summary: `Change a ${r.name} (admin or board owner)`,
        params: boardItemParams,
        body: dataBody(r.update),
        response: { 200: r.schema },
      }),
    },
    async (req) =>
      r.svc.update(req.tenant, ids(req).boardId, ids(req).id, (req.body as { data: z.infer<U> }).data),
  );
  app.delete(
    `${base}/:id`,
    {
      config: { scope: 'boards:write' },
      schema: plain({
        tags,
        summary: `Delete a ${r.name} (admin or board owner)`,
        params: boardItemParams,
        response: { 200: deleted },
      }),
    },
    async (req) => r.svc.remove(req.tenant, ids(req).boardId, ids(req).id),
  );
}
