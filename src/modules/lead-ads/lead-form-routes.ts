import type { AppDeps } from '../../platform/deps.js';
import { listQuerySchema, paginatedSchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import type { LeadAdsKit } from './kit.js';
import * as leads from './leads.js';
import { read, tags, write, writeLive } from './route-docs.js';
import { delivery, deliveryListQuery, deliveryParams, formRoute, routeInput, routeUpdate } from './schema.js';
import * as service from './service.js';

const exampleRoute = {
  name: 'Spring campaign form',
  leadIntegrationDocumentId: 'k3v9x2m8q1w7e5r4t6y0u2i8',
  targetBoardDocumentId: 'b1v9x2m8q1w7e5r4t6y0u2i8',
  leadFormId: '1234567890',
  fieldMapping: {
    mappings: [
      { source: 'full_name', target: 'contact.name' },
      { source: 'email', target: 'contact.email' },
      { source: 'phone_number', target: 'contact.phone' },
      { source: 'company_name', target: 'title' },
    ],
  },
};

/**
 * The lead form routes (/lead-form-routes): which form goes to which board; a change (un)subscribes the form's page
 * at the provider.
 */
export function registerLeadFormRoutes(app: RouteApp, kit: () => Promise<LeadAdsKit>) {
  app.get(
    '/lead-form-routes',
    {
      config: read,
      schema: {
        tags,
        summary: 'List lead form routes',
        description: 'BETA: which lead form goes to which board, with its field mapping.',
        querystring: listQuerySchema,
        response: { 200: paginatedSchema(formRoute) },
      },
    },
    async (req) => service.listRoutes(req.tenant, req.query),
  );

  app.get(
    '/lead-form-routes/:id',
    {
      config: read,
      schema: {
        tags,
        summary: 'One lead form route',
        description: 'BETA: the route and its field mapping.',
        params: idParams,
        response: { 200: formRoute },
      },
    },
    async (req) => service.getRoute(req.tenant, req.params.id),
  );

  app.post(
    '/lead-form-routes',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Route a lead form to a board (admin)',
        description:
          "BETA: subscribes the form's page to leadgen webhooks at the provider (a real side effect). Mapping targets: title, contact.<name|email|phone|city|state|country|address|postal_code> or a field slug of the board's entry phase; an unknown target is a 400 listing the valid ones.",
        body: dataBody(routeInput, [exampleRoute]),
        response: { 201: formRoute },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createRoute(req.tenant, await kit(), req.body.data)),
  );

  app.put(
    '/lead-form-routes/:id',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Update a lead form route (admin)',
        description:
          "BETA: partial. Subscribes the form's page again; a page no route needs any more is unsubscribed at the provider.",
        params: idParams,
        body: dataBody(routeUpdate, [{ name: 'Spring form (sales board)' }]),
        response: { 200: formRoute },
      },
    },
    async (req) => service.updateRoute(req.tenant, await kit(), req.params.id, req.body.data),
  );

  app.delete(
    '/lead-form-routes/:id',
    {
      config: writeLive,
      schema: {
        tags,
        summary: 'Delete a lead form route (admin)',
        description:
          "BETA: unsubscribes the page's leadgen webhooks at the provider when no other route needs the page.",
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteRoute(req.tenant, await kit(), req.params.id),
  );
}

/** A form route's deliveries: the leads it received, and processing a failed one again. */
export function registerDeliveryRoutes(app: RouteApp, deps: AppDeps) {
  app.get(
    '/lead-form-routes/:id/deliveries',
    {
      config: read,
      schema: {
        tags,
        summary: 'The leads a route received, newest first',
        description:
          'BETA: each lead with its status (pending, retrying, succeeded, failed), attempts, the reason of the last failure and the card made.',
        params: idParams,
        querystring: deliveryListQuery,
        response: { 200: paginatedSchema(delivery) },
      },
    },
    async (req) => leads.listDeliveries(req.tenant, req.params.id, req.query),
  );

  app.post(
    '/lead-form-routes/:id/deliveries/:deliveryId/redeliver',
    {
      config: write,
      schema: {
        tags,
        summary: 'Process a failed lead again (admin)',
        description:
          'BETA: queues the lead again with the route as it is now; only failed deliveries (else 422).',
        params: deliveryParams,
        response: { 200: delivery },
      },
    },
    async (req) => leads.redeliver(req.tenant, deps.jobs, deps.config, req.params.id, req.params.deliveryId),
  );
}
