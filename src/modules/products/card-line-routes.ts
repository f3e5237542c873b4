import { listQuerySchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import {
  cardLine,
  cardLineItemParams,
  cardLineList,
  cardLineParams,
  cardLineUpdate,
  lineInput,
} from './schema.js';
import * as service from './service.js';

/** The product lines of a card: list, add, change, remove. */
export function registerCardLineRoutes(app: RouteApp) {
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
}
