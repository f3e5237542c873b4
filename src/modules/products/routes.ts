import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  cardLine,
  cardLineItemParams,
  cardLineList,
  cardLineParams,
  cardLineUpdate,
  lineInput,
  product,
  productInput,
  productUpdate,
} from './schema.js';
import * as service from './service.js';

const tags = ['Products'];

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

  app.get(
    '/boards/:boardId/cards/:cardId/products',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'Product lines of a card, with their totals',
        params: cardLineParams,
        querystring: listQuerySchema,
        response: { 200: cardLineList },
      },
    },
    async (req) => service.listCardLines(req.tenant, req.params.boardId, req.params.cardId, req.query),
  );

  app.post(
    '/boards/:boardId/cards/:cardId/products',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Add a product line to a card (boards with enableProducts)',
        description:
          "unitPrice defaults to the product's price; a unit price below the product's minPrice (after the discount) is a 422. With autoUpdateCardValue the card's value becomes the total of its lines.",
        params: cardLineParams,
        body: dataBody(lineInput),
        response: { 201: cardLine },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await service.addCardLine(req.tenant, req.params.boardId, req.params.cardId, req.body.data)),
  );

  app.put(
    '/boards/:boardId/cards/:cardId/products/:id',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Change a product line of a card; partial',
        params: cardLineItemParams,
        body: dataBody(cardLineUpdate),
        response: { 200: cardLine },
      },
    },
    async (req) =>
      service.updateCardLine(req.tenant, req.params.boardId, req.params.cardId, req.params.id, req.body.data),
  );

  app.delete(
    '/boards/:boardId/cards/:cardId/products/:id',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Remove a product line from a card',
        params: cardLineItemParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteCardLine(req.tenant, req.params.boardId, req.params.cardId, req.params.id),
  );
};
