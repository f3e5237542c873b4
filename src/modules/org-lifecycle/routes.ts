import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { strictBucket } from '../../platform/http/rate-limit.js';
import { idParams } from '../../platform/http/schemas.js';
import { organization } from '../organizations/index.js';
import { cancelDeletion, scheduleDeletion } from './deletion-service.js';
import { getExport, openDownload, requestExport } from './exports.js';
import { fileNote, tags } from './route-docs.js';
import { archiveResponse, downloadQuery, exportParams, orgExport } from './schema.js';

/** Organizations that leave (docs/lgpd.md): the whole organization exported, its deletion scheduled or cancelled. */
export const orgLifecycleRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post(
    '/organizations/:id/export',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        operationId: 'exportOrganization',
        summary: 'Export the whole organization (owner): a job writes one file, downloadable once',
        description: `Owners only. Answers 202 with the export and its one-time download link (shown only here; it expires after CRM_ORG_EXPORT_TTL_HOURS). 409 while the organization is being deleted. ${fileNote}`,
        params: idParams,
        response: { 202: orgExport },
      },
    },
    async (req, reply) => reply.code(202).send(await requestExport(deps, req.principal!, req.params.id)),
  );

  app.get(
    '/organizations/:id/exports/:exportId',
    {
      config: { scope: 'account:read', auth: 'user' },
      schema: {
        tags,
        operationId: 'getOrganizationExport',
        summary: 'The state of an organization export (owner)',
        description: 'Owners only. The link itself is not shown again.',
        params: exportParams,
        response: { 200: orgExport },
      },
    },
    async (req) => getExport(deps, req.principal!, req.params.id, req.params.exportId),
  );

  app.get(
    '/organizations/:id/exports/:exportId/file',
    {
      config: { auth: 'public', ...strictBucket(deps.config, 'public') },
      schema: {
        tags,
        operationId: 'downloadOrganizationExport',
        summary: 'Download an organization export (the link of the export request; once, until it expires)',
        description: `Public: the token is the credential. 404 once used or expired, 409 while the export is not done. ${fileNote}`,
        security: [],
        params: exportParams,
        querystring: downloadQuery,
        produces: ['application/gzip'],
        response: { 200: archiveResponse },
      },
    },
    async (req, reply) => {
      const file = await openDownload(
        deps.db,
        deps.config,
        req.params.id,
        req.params.exportId,
        req.query.token,
      );
      return reply
        .type('application/gzip')
        .header('content-length', file.size)
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${file.name}"`)
        .send(file.stream);
    },
  );

  app.post(
    '/organizations/:id/deletion',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        operationId: 'scheduleOrganizationDeletion',
        summary: 'Schedule the deletion of the organization and all its data (owner)',
        description:
          'Owners only. The deletion happens after the grace period (CRM_ORG_DELETION_GRACE_DAYS, default 30): every row of the organization in every table, and its files. The owners are e-mailed; the organization shows deletionScheduledAt; DELETE cancels until then. 409 when already scheduled.',
        params: idParams,
        response: { 202: organization },
      },
    },
    async (req, reply) => reply.code(202).send(await scheduleDeletion(deps, req.principal!, req.params.id)),
  );

  app.delete(
    '/organizations/:id/deletion',
    {
      config: { scope: 'account:write', auth: 'user' },
      schema: {
        tags,
        operationId: 'cancelOrganizationDeletion',
        summary: 'Cancel the scheduled deletion of the organization (owner)',
        description:
          'Owners only. The owners are e-mailed. 409 when no deletion is scheduled, and once the deletion has started (the organization is being deleted: it can no longer be cancelled).',
        params: idParams,
        response: { 200: organization },
      },
    },
    async (req) => cancelDeletion(deps, req.principal!, req.params.id),
  );
};
