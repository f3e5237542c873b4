import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import { registerQuotePdfRoutes } from './pdf-routes.js';
import { tags } from './route-docs.js';
import { quote, quoteInput, quoteUpdate } from './schema.js';
import * as service from './service.js';

export const quoteRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/quotes',
    {
      config: { scope: 'quotes:read' },
      schema: {
        tags,
        summary: 'List quotes (filters, sort, pagination); needs the quotes feature',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(quote) },
      },
    },
    async (req) => service.listQuotes(req.tenant, req.query),
  );

  app.get(
    '/quotes/:id',
    {
      config: { scope: 'quotes:read' },
      schema: { tags, summary: 'One quote with its items', params: idParams, response: { 200: quote } },
    },
    async (req) => service.getQuote(req.tenant, req.params.id),
  );

  app.post(
    '/quotes',
    {
      config: { scope: 'quotes:write' },
      schema: {
        tags,
        summary: 'Create a quote (member); it gets the next number of the organization',
        description:
          'Each item names a product; its unitPrice defaults to the product price. A unit price that, after the line discount, is below the product minPrice is a 422 naming the item.',
        body: dataBody(quoteInput, [
          {
            title: 'Acme Corp — 50 seats',
            validUntil: '2026-12-31',
            currency: 'BRL',
            notes: 'Prices include onboarding.',
            items: [{ product: 'k3v9q2m8x1c7d4f6h0j5n2p8', quantity: 50, discount: 10 }],
          },
        ]),
        response: { 201: quote },
      },
    },
    async (req, reply) => reply.code(201).send(await service.createQuote(req.tenant, req.body.data)),
  );

  app.put(
    '/quotes/:id',
    {
      config: { scope: 'quotes:write' },
      schema: {
        tags,
        summary: 'Update a quote (member); partial, `items` replaces all lines (draft quotes only)',
        params: idParams,
        body: dataBody(quoteUpdate, [{ status: 'sent' }]),
        response: { 200: quote },
      },
    },
    async (req) => service.updateQuote(req.tenant, req.params.id, req.body.data),
  );

  app.delete(
    '/quotes/:id',
    {
      config: { scope: 'quotes:write' },
      schema: { tags, summary: 'Delete a quote (member)', params: idParams, response: { 200: deleted } },
    },
    async (req) => service.deleteQuote(req.tenant, req.params.id),
  );

  registerQuotePdfRoutes(app);
};
