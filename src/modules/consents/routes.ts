import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { dataBody, idParams } from '../../platform/http/schemas.js';
import { tags } from './route-docs.js';
import { consentEntry, consentInput, contactConsents } from './schema.js';
import * as service from './service.js';

/** The consent ledger of a contact (docs/lgpd.md, "Consent"): read it, append to it; no route changes an entry. */
export const consentRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/contacts/:id/consents',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags,
        summary: 'A contact’s consents: the current state per channel and purpose, and the ledger (LGPD)',
        description:
          'The current state of each channel (whatsapp, email, sms) and purpose (marketing, transactional) is the ' +
          'latest ledger entry (`none` when nothing was recorded); marketing sends honour it (docs/lgpd.md).',
        params: idParams,
        response: { 200: contactConsents },
      },
    },
    async (req) => service.listConsents(req.tenant, req.params.id),
  );

  app.post(
    '/contacts/:id/consents',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags,
        summary: 'Record a consent or its withdrawal for a contact (append-only ledger; member or above)',
        description:
          'Appends one entry; entries are never changed or deleted (a later entry supersedes). `recordedAt` is the ' +
          'time of the request and `recordedBy` the calling member.',
        params: idParams,
        body: dataBody(consentInput, [
          {
            channel: 'whatsapp',
            purpose: 'marketing',
            status: 'granted',
            legalBasis: 'consent',
            source: 'manual',
            proof: { note: 'Opt-in por telefone, gravação 2026-11-27 14:03' },
          },
        ]),
        response: { 201: consentEntry },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await service.recordConsent(req.tenant, req.params.id, req.body.data)),
  );
};
