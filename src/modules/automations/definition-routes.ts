import type { AppDeps } from '../../platform/deps.js';
import type { RouteApp } from '../../platform/http/route-app.js';
import { dataBody, idParams } from '../../platform/http/schemas.js';
import { admins, tags } from './route-docs.js';
import { automation, automationInput, automationUpdate, automationWithSecret } from './schema.js';
import * as service from './service.js';

/** The routes that take an automation's definition (trigger, conditions, actions) and check it whole. */
export function registerAutomationDefinitionRoutes(app: RouteApp, deps: AppDeps) {
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
}
