import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { product, productInput, productUpdate } from './schema.js';
import * as service from './service.js';

const tags = ['Products'];

export const productRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/products',
    {
      schema: {
        tags,
        summary: 'List products (filters, sort, pagination)',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(product) },
      },
    },
    async (req) => service.listProducts(req.tenant, req.query),
  );

  app.get(
    '/products/:id',
    { schema: { tags, summary: 'One product', params: idParams, response: { 200: product } } },
    async (req) => service.getProduct(req.tenant, req.params.id),
  );

  app.post(
    '/products',
    {
      schema: {
        tags,
        summary: 'Create a product (admin); name, sku and price are required, sku is unique',
        body: dataBody(productInput),
        response: { 201: product },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createProduct(req.tenant, req.body.data)),
  );

  app.put(
    '/products/:id',
    {
      schema: {
        tags,
        summary: 'Update a product (admin); partial',
        params: idParams,
        body: dataBody(productUpdate),
        response: { 200: product },
      },
    },
    async (req) => service.updateProduct(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/products/:id',
    {
      schema: {
        tags,
        summary: 'Delete a product (admin); quote and card lines keep their copied name and SKU',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteProduct(req.tenant, req.params.id),
  );
};
