import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../platform/deps.js';
import { SOFTWARE_VERSION } from '../../platform/version.js';

const tags = ['Health'];
const probe = { auth: 'public', rateLimit: false } as const;

export const healthRoutes: FastifyPluginAsyncZod<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/health',
    {
      config: probe,
      schema: {
        tags,
        summary: 'Liveness and database reachability',
        description:
          'The liveness check: 200 while the process runs and reaches its database (also while it starts or stops), with the software version. Load balancers should route by `GET /api/ready` instead.',
        response: {
          200: z.object({ status: z.literal('ok'), db: z.literal('ok'), version: z.string() }),
          503: z.object({ status: z.literal('degraded'), db: z.literal('down'), version: z.string() }),
        },
      },
    },
    async (_req, reply) =>
      (await deps.db.ping())
        ? { status: 'ok' as const, db: 'ok' as const, version: SOFTWARE_VERSION }
        : reply
            .code(503)
            .send({ status: 'degraded' as const, db: 'down' as const, version: SOFTWARE_VERSION }),
  );

  app.get(
    '/ready',
    {
      config: probe,
      schema: {
        tags,
        summary: 'Readiness: whether this process should get traffic',
        description:
          '200 once the database is migrated, the demo organization exists (`crm serve --demo`) and the background workers run; 503 before that (`starting`), from the moment a shutdown begins (`stopping`: requests in flight still finish), and while the database is unreachable (`db: down`).',
        response: {
          200: z.object({ status: z.literal('ready'), db: z.literal('ok') }),
          503: z.object({
            status: z.enum(['starting', 'stopping', 'ready']),
            db: z.enum(['ok', 'down', 'unknown']),
          }),
        },
      },
    },
    async (_req, reply) => {
      const state = deps.readiness?.state ?? 'ready';
      if (state !== 'ready') return reply.code(503).send({ status: state, db: 'unknown' as const });
      if (!(await deps.db.ping())) return reply.code(503).send({ status: state, db: 'down' as const });
      return { status: 'ready' as const, db: 'ok' as const };
    },
  );
};
