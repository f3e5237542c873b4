import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { listQueryShape } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted } from '../../platform/http/schemas.js';
import { boardIdParams } from '../boards/index.js';
import * as report from './report.js';
import { tags } from './route-docs.js';
import {
  aggregateQuery,
  aggregateResult,
  card,
  cardCreateInput,
  cardList,
  cardListQuery,
  cardParams,
  cardUpdateInput,
  moveInput,
} from './schema.js';
import * as service from './service.js';

/** The cards of a board: list, create, aggregate. */
export function registerCardCollectionRoutes(app: RouteApp) {
  app.get(
    '/boards/:boardId/cards',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'Cards of a board, filtered, sorted and paginated, with CardStats in meta.stats',
        params: boardIdParams,
        querystring: cardListQuery,
        response: { 200: cardList },
      },
    },
    async (req) => service.listCards(req.tenant, req.params.boardId, req.query),
  );

  app.post(
    '/boards/:boardId/cards',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Create a card (in the entry phase unless currentPhase is given)',
        params: boardIdParams,
        body: dataBody(cardCreateInput, [
          {
            title: 'Acme Corp — 50 seats',
            value: 12500,
            dueDate: '2026-12-15T17:00:00.000Z',
            fields: { company: 'Acme Corp', 'deal-size': 12500 },
            tags: ['hot'],
          },
        ]),
        response: { 201: card },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createCard(req.tenant, req.params.boardId, req.body.data)),
  );

  app.get(
    '/boards/:boardId/cards/aggregate',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'count/sum/avg/min/max of the card value or a number field, optionally grouped',
        params: boardIdParams,
        querystring: aggregateQuery,
        response: { 200: aggregateResult },
      },
    },
    async (req) => report.aggregateCards(req.tenant, req.params.boardId, req.query),
  );
}

/** One card: read, update, delete, move. */
export function registerCardItemRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/boards/:boardId/cards/:id',
    {
      config: { scope: 'cards:read' },
      schema: {
        tags,
        summary: 'One card',
        params: cardParams,
        querystring: z.strictObject({ populate: listQueryShape.populate }),
        response: { 200: card },
      },
    },
    async (req) => service.getCard(req.tenant, req.params.boardId, req.params.id, req.query.populate),
  );

  app.put(
    '/boards/:boardId/cards/:id',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Update a card (partial; `fields` merge by slug; `currentPhase` moves it)',
        params: cardParams,
        body: dataBody(cardUpdateInput, [{ value: 14000, currentPhase: 'proposal-sent' }]),
        response: { 200: card },
      },
    },
    async (req) => service.updateCard(req.tenant, req.params.boardId, req.params.id, req.body.data),
  );

  app.delete(
    '/boards/:boardId/cards/:id',
    {
      config: { scope: 'cards:write' },
      schema: { tags, summary: 'Delete a card permanently', params: cardParams, response: { 200: deleted } },
    },
    async (req) => service.deleteCard(req.tenant, deps.config, req.params.boardId, req.params.id),
  );

  app.post(
    '/boards/:boardId/cards/:id/move',
    {
      config: { scope: 'cards:write' },
      schema: {
        tags,
        summary: 'Move a card to another phase (422 when blocked or required fields are empty)',
        params: cardParams,
        body: moveInput.meta({ examples: [{ phase: 'proposal-sent' }] }),
        response: { 200: card },
      },
    },
    async (req) => service.moveCard(req.tenant, req.params.boardId, req.params.id, req.body.phase),
  );
}
