import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { dataBody, deleted, idParams } from '../../platform/http/schemas.js';
import {
  automation,
  automationInput,
  automationListQuery,
  automationUpdate,
  automationWithSecret,
  run,
  runListQuery,
} from './schema.js';
import * as service from './service.js';

const tags = ['Automations'];
const admins = 'BETA: organization admins only (plan feature `automations`).';

export const automationRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/automations',
    {
      config: { scope: 'automations:read' },
      schema: {
        tags,
        summary: 'List automations',
        description: admins,
        querystring: automationListQuery,
        response: { 200: paginatedSchema(automation) },
      },
    },
    async (req) => service.listAutomations(req.tenant, req.query),
  );

  app.get(
    '/automations/:id',
    {
      config: { scope: 'automations:read' },
      schema: {
        tags,
        summary: 'One automation',
        description: admins,
        params: idParams,
        response: { 200: automation },
      },
    },
    async (req) => service.getAutomation(req.tenant, req.params.id),
  );

  app.post(
    '/automations',
    {
      config: { scope: 'automations:write' },
      schema: {
        tags,
        summary: 'Create an automation: when an event happens (and its conditions hold), run actions',
        description:
          'BETA: `trigger.event` is a domain event (docs/automations.md lists them with their data); `conditions` ' +
          'compare dot paths of the event data (`card.value` gt 1000, `to.slug` eq "won"); `board` limits card ' +
          'events to one board. Actions: move_card, assign, add_tag, remove_tag, set_field, set_due_date, ' +
          'create_task, send_template_message, send_email, http_request (phases, tags and fields by documentId or slug, checked now: unknown ones ' +
          'are a 400 naming the valid ones). Card changes follow the API rules (transitions, required fields, ' +
          'access) as the admin who saved it. `http_request` is signed with the returned secret (Standard ' +
          'Webhooks), shown once. `http_request` header values are write-only: stored encrypted, answered as ' +
          '"********". An automation\'s own changes re-trigger automations at most 3 levels deep. ' +
          admins,
        body: dataBody(automationInput, [
          {
            name: 'Big deals to negotiation',
            board: 'k3v9x0c1q2w3e4r5t6y7u8i9',
            trigger: { event: 'card.created', conditions: [{ field: 'card.value', op: 'gt', value: 10000 }] },
            actions: [
              { type: 'move_card', params: { phase: 'negotiation' } },
              { type: 'add_tag', params: { tag: 'vip' } },
              { type: 'set_due_date', params: { inHours: 24 } },
            ],
          },
        ]),
        response: { 201: automationWithSecret },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.createAutomation(deps, req.tenant, req.body.data)),
  );

  app.put(
    '/automations/:id',
    {
      config: { scope: 'automations:write' },
      schema: {
        tags,
        summary: 'Change an automation',
        description:
          `${admins} Fields not sent keep their value; the whole automation is checked again. \`actions\`, when ` +
          'sent, replaces the list, but each `http_request` keeps the stored header values it does not replace ' +
          '(write-only: a header not sent or sent as "********" keeps its value, `null` removes it), from the ' +
          'stored `http_request` of the same rank while its URL keeps its origin.',
        params: idParams,
        body: dataBody(automationUpdate, [{ enabled: false }]),
        response: { 200: automation },
      },
    },
    async (req) => service.updateAutomation(deps, req.tenant, req.params.id, req.body.data),
  );

  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const)
    app.post(
      `/automations/:id/${verb}`,
      {
        config: { scope: 'automations:write' },
        schema: {
          tags,
          summary: enabled ? 'Enable an automation' : 'Disable an automation (its pending runs are skipped)',
          description: admins,
          params: idParams,
          response: { 200: automation },
        },
      },
      async (req) => service.setEnabled(req.tenant, req.params.id, enabled),
    );

  app.delete(
    '/automations/:id',
    {
      config: { scope: 'automations:write' },
      schema: {
        tags,
        summary: 'Delete an automation and its runs',
        description: admins,
        params: idParams,
        response: { 200: deleted },
      },
    },
    async (req) => service.deleteAutomation(req.tenant, req.params.id),
  );

  app.get(
    '/automations/:id/runs',
    {
      config: { scope: 'automations:read' },
      schema: {
        tags,
        summary: "The runs of an automation, newest first, with each action's result",
        description: `${admins} One run per triggering event; \`results\` holds { type, ok, message, output } per action.`,
        params: idParams,
        querystring: runListQuery,
        response: { 200: paginatedSchema(run) },
      },
    },
    async (req) => service.listRuns(req.tenant, req.params.id, req.query),
  );
};
