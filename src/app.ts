import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { agendaRoutes } from './modules/agenda/routes.js';
import { agentConfirmationRoutes } from './modules/agent-confirmations/routes.js';
import { auditLogRoutes } from './modules/audit-logs/routes.js';
import { automationRoutes } from './modules/automations/routes.js';
import { boardRoutes } from './modules/boards/routes.js';
import { campaignPublicRoutes } from './modules/campaigns/public-routes.js';
import { campaignRoutes } from './modules/campaigns/routes.js';
import { cardImportJobRoutes } from './modules/cards/import-jobs.js';
import { cardRoutes } from './modules/cards/routes.js';
import { channelRoutes } from './modules/channels/routes.js';
import { consentRoutes } from './modules/consents/routes.js';
import { contactRoutes } from './modules/contacts/routes.js';
import { conversionPixelRoutes } from './modules/conversion-pixels/routes.js';
import { distributionRoutes } from './modules/distribution/routes.js';
import { emailTemplateRoutes } from './modules/email-templates/routes.js';
import { healthRoutes } from './modules/health/routes.js';
import { inboxRoutes } from './modules/inbox/routes.js';
import { invitationRoutes } from './modules/invitations/routes.js';
import { leadAdsRoutes, leadAdsWebhookRoutes } from './modules/lead-ads/routes.js';
import { notificationRoutes } from './modules/notifications/routes.js';
import { createOauthServer, mountAuthorizationServer, oauthRoutes } from './modules/oauth/index.js';
import { orgLifecycleRoutes } from './modules/org-lifecycle/routes.js';
import { organizationRoutes } from './modules/organizations/routes.js';
import { pdfTemplateRoutes } from './modules/pdf-templates/routes.js';
import { privacyRoutes } from './modules/privacy/routes.js';
import { productCategoryRoutes } from './modules/product-categories/routes.js';
import { productRoutes } from './modules/products/routes.js';
import { quoteRoutes } from './modules/quotes/routes.js';
import { savedFilterRoutes } from './modules/saved-filters/routes.js';
import { segmentRoutes } from './modules/segments/routes.js';
import { taskRoutes } from './modules/tasks/routes.js';
import { teamRoutes } from './modules/teams/routes.js';
import { templateRoutes } from './modules/templates/routes.js';
import { userRoutes } from './modules/users/routes.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { authPlugin } from './platform/auth/plugin.js';
import { sessionSigner } from './platform/auth/tokens.js';
import type { Database } from './platform/db/client.js';
import type { AppDeps } from './platform/deps.js';
import { registerHttpConventions } from './platform/http/conventions.js';
import { installDryRun } from './platform/http/dry-run.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './platform/http/errors.js';
import { registerDocsRoutes, registerOpenApi } from './platform/http/openapi.js';
import { acceptEmptyJsonBody, installProjection } from './platform/http/projection.js';
import { refuseProtoQueryKeys } from './platform/http/query-string.js';
import { registerRateLimit } from './platform/http/rate-limit.js';
import { installReadYourWrites } from './platform/http/read-your-writes.js';
import { installRequestGuards, parseQueryString } from './platform/http/request-guards.js';
import { installRequestLog, loggerOptions, RequestLogController } from './platform/http/request-log.js';
import { registerWebApp } from './platform/http/web-app.js';
import { idempotencyPlugin } from './platform/idempotency/plugin.js';
import { createReadiness, type Readiness } from './platform/lifecycle/readiness.js';
import { installHttpMetrics } from './platform/metrics/http.js';
import { instanceSecret } from './platform/secrets/secrets.js';
import { createBackground, type WorkerDeps } from './workers.js';

declare module 'fastify' {
  interface FastifyInstance {
    routeIndex: { method: string; url: string }[];
  }
}

export interface BuildOptions {
  config: Config;
  db: Database;
  logger?: boolean | object;
  /** Job queue and mailer started by the caller (serve); otherwise the app starts a queue without workers. */
  background?: WorkerDeps;
  /** Set by the server (ready after start-up, stopping at shutdown); otherwise ready once the app is. */
  readiness?: Readiness;
}

/** Every area's routes, mounted under /api. Adding an area = one line here. */
const areas = [
  healthRoutes,
  userRoutes,
  organizationRoutes,
  orgLifecycleRoutes,
  auditLogRoutes,
  invitationRoutes,
  boardRoutes,
  cardRoutes,
  cardImportJobRoutes,
  productCategoryRoutes,
  productRoutes,
  quoteRoutes,
  pdfTemplateRoutes,
  taskRoutes,
  notificationRoutes,
  agentConfirmationRoutes,
  segmentRoutes,
  contactRoutes,
  consentRoutes,
  privacyRoutes,
  teamRoutes,
  channelRoutes,
  templateRoutes,
  emailTemplateRoutes,
  campaignRoutes,
  campaignPublicRoutes,
  inboxRoutes,
  savedFilterRoutes,
  distributionRoutes,
  webhookRoutes,
  automationRoutes,
  conversionPixelRoutes,
  agendaRoutes,
  leadAdsRoutes,
  leadAdsWebhookRoutes,
];

export async function buildApp({ config, db, logger, ...opts }: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config, logger),
    // One completion line per request, carrying tenant and user (request-log.ts).
    logController: new RequestLogController(),
    bodyLimit: config.CRM_BODY_LIMIT_BYTES,
    routerOptions: { querystringParser: parseQueryString },
    frameworkErrors,
    clientErrorHandler,
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // Every registered route, so tests can check each one appears in the OpenAPI document.
  const routeIndex: { method: string; url: string }[] = [];
  app.decorate('routeIndex', routeIndex);
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) routeIndex.push({ method: m.toLowerCase(), url: r.url });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  installRequestGuards(app);
  acceptEmptyJsonBody(app);
  installProjection(app);
  app.addHook('preValidation', refuseProtoQueryKeys);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
  const { jobs, mailer, metrics } = opts.background ?? (await createBackground(config, db));
  installHttpMetrics(app, metrics, config);
  app.addHook('onClose', async () => metrics.close());
  if (!opts.background) {
    app.addHook('onReady', () => jobs.start({ workers: false }));
    app.addHook('onClose', () => jobs.stop());
  }
  const readiness = opts.readiness ?? createReadiness();
  if (!opts.readiness) app.addHook('onReady', async () => readiness.markReady());
  const deps: AppDeps = { config, db, signer, jobs, mailer, readiness, metrics };

  // Before the conventions: a dry run's answer is reshaped before it is tagged and compressed.
  installDryRun(app);
  await registerHttpConventions(app, config);
  await registerOpenApi(app);
  const authFailures = await registerRateLimit(app, config);
  // OAuth access tokens (sign-in for remote agents) are bearers of the REST API too.
  const oauth = createOauthServer(config, db);
  const delegated = async (token: string) => oauth.accessToken(token);
  await app.register(authPlugin, { db, signer, authFailures, delegated });
  installRequestLog(app);
  installReadYourWrites(app, config, db);
  await app.register(idempotencyPlugin, { db, config, leaseSeconds: config.CRM_IDEMPOTENCY_LEASE_SECONDS });
  for (const area of areas) await app.register(area, { prefix: '/api', deps });
  await app.register(oauthRoutes, { prefix: '/api', deps, server: oauth });
  await mountAuthorizationServer(app, oauth);
  await registerDocsRoutes(app);
  await registerWebApp(app);
  return app;
}
