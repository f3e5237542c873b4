import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../platform/deps.js';
import { paginatedSchema } from '../../platform/http/list-query.js';
import { auditLogEntry, auditLogQuery } from './schema.js';
import { listAuditLogs } from './service.js';

const tags = ['Audit log'];

/** The organization's audit log (docs/lgpd.md): read only, owners and admins. */
export const auditLogRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app) => {
  app.get(
    '/audit-logs',
    {
      config: { scope: 'audit:read' },
      schema: {
        tags,
        operationId: 'listAuditLogs',
        summary: 'The organization’s audit log, newest first (owners and admins)',
        description:
          'Owners and admins only (403 otherwise). Filter with `filters[action][$eq]`, `filters[target][$eq]`, ' +
          '`filters[createdAt][$gte]`/`[$lt]`, `filters[actor][email][$eq]` (or `[documentId]`, `[username]`), or ' +
          'the shortcuts `action`, `actor` (documentId, e-mail or username), `target`, `from`, `to`; sort by id, ' +
          'action or createdAt; Strapi pagination.',
        querystring: auditLogQuery,
        response: { 200: paginatedSchema(auditLogEntry) },
      },
    },
    async (req) => listAuditLogs(req.tenant, req.query),
  );
};
