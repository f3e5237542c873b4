import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { category, categoryInput } from './schema.js';
import * as service from './service.js';

const tags = ['Products'];

export const productCategoryRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/product-categories',
    {
      config: { scope: 'products:read' },
      schema: {
        tags,
        summary: 'List product categories',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(category) },
      },
    },
    async (req) => service.listCategories(req.tenant, req.query),
  );

  app.get(
    '/product-categories/:id',
    {
      config: { scope: 'products:read' },
      schema: { tags, summary: 'One product category', params: idParams, response: { 200: category } },
    },
    async (req) => service.getCategory(req.tenant, req.params.id),
  );

  app.post(
    '/product-categories',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        summary: 'Create a product category (admin); names are unique',
        body: dataBody(categoryInput),
        response: { 201: category },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createCategory(req.tenant, req.body.data)),
  );

  app.put(
    '/product-categories/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        summary: 'Rename a product category (admin)',
        params: idParams,
        body: dataBody(categoryInput),
        response: { 200: category },
      },
    },
    async (req) => service.updateCategory(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/product-categories/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        summary: 'Delete a product category (admin); its products keep existing without a category',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteCategory(req.tenant, req.params.id),
  );
};
