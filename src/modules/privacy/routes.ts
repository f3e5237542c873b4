import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { idParams } from '../../platform/http/schemas.js';
import { admins, beta, tags } from './route-docs.js';
import { eraseBody, exportTokenParams, privacyRequest } from './schema.js';
import * as service from './service.js';

/** A person's data exported or erased (LGPD art. 18; docs/lgpd.md), and the export's one-time download. */
export const privacyRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/contacts/:id/data-export',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        operationId: 'exportContactData',
        summary: 'Export everything the organization holds about a contact (a zip, as a job)',
        description: beta(
          `${admins} Queues a job that writes a zip of JSON and CSV files (the contact, its timeline, the cards ` +
            'that reference it with their dynamic-field values, conversations and messages, campaign deliveries ' +
            'and engagement, consents, tasks, quotes, and the uploaded files). Answers the request (202) with its ' +
            '`downloadUrl`, shown only in this answer: it works once the export is done (`GET /privacy-requests/{id}` ' +
            'gives the status), once, for 15 minutes.',
        ),
        params: idParams,
        response: { 202: privacyRequest },
      },
    },
    async (req, reply) =>
      reply.code(202).send(await service.requestDataExport(req.tenant, deps, req.params.id)),
  );

  app.post(
    '/contacts/:id/erase',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        operationId: 'eraseContact',
        summary: "Erase a contact's personal data everywhere (confirmed; a job; cannot be undone)",
        description: beta(
          `${admins} Body \`{ "confirm": "<the contact's documentId>" }\` (or inside \`data\`). Queues a job that anonymises the ` +
            'contact and every copy of its personal data: timeline texts, its cards’ texts and dynamic-field ' +
            'values, its conversations and messages (deleted), campaign recipient rows, uploads, consent proofs, ' +
            'search copies, and any text or JSON of the organization holding its name, e-mail, phone or CPF ' +
            '(event payloads, webhook delivery bodies…). The suppression list keeps only a keyed hash of its ' +
            'addresses, so an opt-out still holds. Audited with ids only. Status: `GET /privacy-requests/{id}`.',
        ),
        params: idParams,
        body: eraseBody,
        response: { 202: privacyRequest },
      },
    },
    async (req, reply) =>
      reply.code(202).send(await service.requestErasure(req.tenant, deps, req.params.id, req.body)),
  );

  app.get(
    '/privacy-requests/:id',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        operationId: 'getPrivacyRequest',
        summary: 'A data export or erasure: status, summary, the export’s download link',
        description: beta(
          `${admins} status queued|running|done|failed (an erasure is done once its data is gone, with \`warnings\` ` +
            'for what failed after; an export is failed when the contact was erased while it was made); summary: ' +
            'counts per section or table. `downloadUrl` is null here: the export link is shown once, in the answer ' +
            'to the request.',
        ),
        params: idParams,
        response: { 200: privacyRequest },
      },
    },
    async (req) => service.getRequest(req.tenant, req.params.id),
  );

  app.get(
    '/data-exports/:token',
    {
      config: { auth: 'public' },
      schema: {
        tags,
        operationId: 'downloadDataExport',
        summary: 'Download a data export (the one-time link; works once)',
        description: beta(
          'The link is its own credential (no bearer): the token the export request answered with (only its ' +
            'SHA-256 is stored), valid 15 minutes after the export is done, and usable once: the file is removed ' +
            'once sent (a `HEAD` checks the link without using it up). 409 while the export is not done (the link ' +
            'is not spent). A second use, an expired, failed or unknown link is a 404 saying so.',
        ),
        security: [],
        params: exportTokenParams,
        produces: ['application/zip'],
        response: { 200: z.string().describe('The zip file') },
      },
    },
    async (req, reply) => {
      const head = req.method === 'HEAD';
      const file = await service.openExportDownload(deps.db, deps.config, req.params.token, head);
      reply
        .type('application/zip')
        .header('content-length', file.size)
        .header('content-disposition', `attachment; filename="${file.name}"`)
        .header('cache-control', 'no-store');
      return reply.send((file.stream ?? '') as unknown as string);
    },
  );
};
