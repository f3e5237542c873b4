import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { type Config, databaseOptions, publicBaseUrl } from './config.js';
import { sealLegacyHeaders } from './modules/automations/seal-legacy.js';
import { modules } from './modules.js';
import { startBackupService } from './platform/backup/service.js';
import { type Database, openDatabase } from './platform/db/client.js';
import { startMaintenance } from './platform/db/maintenance.js';
import { migrateDatabase } from './platform/db/migrate.js';
import { sealLegacyReplays } from './platform/idempotency/seal-legacy.js';
import { createReadiness, type Readiness } from './platform/lifecycle/readiness.js';
import { startJobs, type WorkerDeps } from './workers.js';

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  /** The process's job queue and mailer (workers running when CRM_WORKERS=inline). */
  background: WorkerDeps;
  url: string;
  /** `starting` until `onReady` has run (the banner printed), `stopping` from the first moment of close(). */
  readiness: Readiness;
  close(): Promise<void>;
}

/**
 * Opens and migrates the database, starts the jobs, builds the app and listens; runs `onReady` (the demo, the
 * banner) and only then reports ready on `GET /api/ready`.
 */
export async function startServer(
  config: Config,
  onReady?: (s: RunningServer) => Promise<void>,
): Promise<RunningServer> {
  const db = await openDatabase(databaseOptions(config));
  const readiness = createReadiness();
  let app: FastifyInstance | undefined;
  let background: WorkerDeps | undefined;
  let inFlight: ReturnType<typeof countRequests> | undefined;
  let maintenance: Awaited<ReturnType<typeof startMaintenance>> | undefined;
  let backups: Awaited<ReturnType<typeof startBackupService>>;
  try {
    await migrateDatabase(db, modules);
    // Data upgrades that need the service's secrets (the migrations run without them).
    await sealLegacyHeaders(config, db);
    await sealLegacyReplays(config, db);
    background = await startJobs(config, db, config.CRM_WORKERS === 'inline');
    app = await buildApp({ config, db, background, readiness });
    // The bookkeeping tables' upkeep runs beside the workers; every API process warns about the settings.
    maintenance = await startMaintenance(db, modules, config, app.log, config.CRM_WORKERS === 'inline');
    await app.listen({ port: config.PORT, host: config.HOST });
    inFlight = countRequests(app);
    // The embedded database's backups: the control channel `crm backup` asks, and the schedule.
    backups = await startBackupService(config, db, app.log);
  } catch (err) {
    await maintenance?.stop().catch(() => {});
    await app?.close().catch(() => {});
    await background?.jobs.stop().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = publicBaseUrl(config, port);
  const server: RunningServer = {
    app,
    db,
    background: background!,
    url,
    readiness,
    close: async () => {
      // Readiness first, so load balancers stop sending (CRM_SHUTDOWN_DELAY_SECONDS for them to notice), then
      // no new connections; open event streams end with a `retry:` hint (inbox preClose hook); requests in
      // flight finish, bounded by CRM_SHUTDOWN_TIMEOUT_SECONDS; workers finish their current job; the
      // database closes last.
      readiness.markStopping();
      if (config.CRM_SHUTDOWN_DELAY_SECONDS > 0)
        await new Promise((r) => setTimeout(r, config.CRM_SHUTDOWN_DELAY_SECONDS * 1000));
      const drainMs = config.CRM_SHUTDOWN_TIMEOUT_SECONDS * 1000;
      const forced = setTimeout(() => app!.server.closeAllConnections(), drainMs);
      await app!.close();
      // A request read from a kept-alive connection just as the server closed may still be running: the
      // database stays open until it has answered (bounded, so a hung client cannot hold the shutdown).
      await inFlight!.idle(drainMs);
      clearTimeout(forced);
      await backups?.stop();
      await maintenance!.stop();
      await background!.jobs.stop();
      await db.close();
    },
  };
  await onReady?.(server);
  readiness.markReady();
  // In a cluster (CRM_PROCESSES > 1) the supervisor starts the other API processes once the first one is ready.
  if (cluster.isWorker) process.send?.({ crm: 'ready' });
  return server;
}

/** Requests the HTTP server has received and not yet finished answering (or seen aborted). */
function countRequests(app: FastifyInstance) {
  let open = 0;
  let wake: (() => void) | undefined;
  app.server.on('request', (_req, res) => {
    open++;
    res.once('close', () => {
      open--;
      if (open === 0) wake?.();
    });
  });
  return {
    idle: (maxMs: number) =>
      open === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, maxMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          }),
  };
}
