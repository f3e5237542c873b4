import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { registerCardLineRoutes } from './card-line-routes.js';
import { tags } from './route-docs.js';
import { product, productInput, productUpdate } from './schema.js';
import * as service from './service.js';

export const productRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/products',
    {
      config: { scope: 'products:read' },
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
    {
      config: { scope: 'products:read' },
      schema: { tags, summary: 'One product', params: idParams, response: { 200: product } },
    },
    async (req) => service.getProduct(req.tenant, req.params.id),
  );

  app.post(
    '/products',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        summary: 'Create a product (admin); name, sku and price are required, sku is unique',
        body: dataBody(productInput, [
          {
            name: 'CRM Pro licence (annual)',
            sku: 'CRM-PRO-12M',
            price: 1200,
            minPrice: 960,
            unit: 'seat',
            description: 'One user seat, billed yearly',
          },
        ]),
        response: { 201: product },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createProduct(req.tenant, req.body.data)),
  );

  app.put(
    '/products/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        summary: 'Update a product (admin); partial',
        params: idParams,
        body: dataBody(productUpdate, [{ price: 1150, active: true }]),
        response: { 200: product },
      },
    },
    async (req) => service.updateProduct(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/products/:id',
    {
      config: { scope: 'products:write' },
      schema: {
        tags,
        summary: 'Delete a product (admin); quote and card lines keep their copied name and SKU',
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteProduct(req.tenant, req.params.id),
  );

  registerCardLineRoutes(app);
};
