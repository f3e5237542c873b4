import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import qs from 'qs';
import type { Config } from './config.js';
import { healthRoutes } from './modules/health/routes.js';
import { organizationRoutes } from './modules/organizations/routes.js';
import { userRoutes } from './modules/users/routes.js';
import { authPlugin } from './platform/auth/plugin.js';
import { sessionSigner } from './platform/auth/tokens.js';
import type { Database } from './platform/db/client.js';
import type { AppDeps } from './platform/deps.js';
import { installErrorHandling } from './platform/http/errors.js';
import { registerDocsRoutes, registerOpenApi } from './platform/http/openapi.js';
import { registerRateLimit } from './platform/http/rate-limit.js';
import { idempotencyPlugin } from './platform/idempotency/plugin.js';
import { instanceSecret } from './platform/secrets/secrets.js';

export interface BuildOptions {
  config: Config;
  db: Database;
  logger?: boolean | object;
}

/** Every area's routes, mounted under /api. Adding an area = one line here. */
const areas = [healthRoutes, userRoutes, organizationRoutes];

export async function buildApp({ config, db, logger }: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? (config.CRM_LOG_LEVEL === 'silent' ? false : { level: config.CRM_LOG_LEVEL }),
    bodyLimit: config.CRM_BODY_LIMIT_BYTES,
    routerOptions: {
      querystringParser: (str) => qs.parse(str, { depth: 10, arrayLimit: 100, parameterLimit: 500 }),
    },
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
  const deps: AppDeps = { config, db, signer };

  await registerOpenApi(app);
  await registerRateLimit(app, config);
  await app.register(authPlugin, { db, signer });
  await app.register(idempotencyPlugin, { db });
  for (const area of areas) await app.register(area, { prefix: '/api', deps });
  await registerDocsRoutes(app);
  return app;
}
