import cluster from 'node:cluster';
import { pino } from 'pino';
import { type Config, databaseOptions } from '../config.js';
import { ensureDemo } from '../modules/organizations/demo.js';
import { modules } from '../modules.js';
import { sessionSigner } from '../platform/auth/tokens.js';
import { openDatabase } from '../platform/db/client.js';
import { startMaintenance } from '../platform/db/maintenance.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { serveMetrics } from '../platform/metrics/http.js';
import { instanceSecret } from '../platform/secrets/secrets.js';
import { SOFTWARE_VERSION } from '../platform/version.js';
import { type RunningServer, startServer } from '../server.js';
import { startJobs } from '../workers.js';
import { printDemo } from './deps.js';
import { UsageError } from './usage.js';

/**
 * Under `npm start`, npm passes a SIGTERM to the shell it spawned, which dies without passing it on: the service
 * would keep running, holding the port. Started by npm, it follows its parent instead and stops when it goes.
 * (Only then: a service started from a shell with `&` or `nohup` must outlive that shell.)
 */
function followNpmParent(stop: () => void) {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}

export async function serve(config: Config, demo: boolean) {
  // Signals are handled from the first moment: one arriving during start-up stops the server once it is up.
  let server: RunningServer | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(
      `${signal}: not ready any more; finishing in-flight requests and jobs, then closing the database`,
    );
    if (!server) return; // start-up sees `stopping` and closes
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  followNpmParent(() => void stop('npm exited'));
  // The banner (and the demo's credentials) print before `/api/ready` turns 200: a script that waits for
  // readiness finds the demo there.
  server = await startServer(config, async (s) => {
    console.log(
      `CRM service ${SOFTWARE_VERSION} listening on ${s.url} (${s.db.kind === 'pglite' ? `embedded database in ${config.CRM_DATA_DIR}/db` : 'PostgreSQL'})`,
    );
    if (!demo) return;
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(s.db, 'jwt')));
    const { jobs, mailer, metrics } = s.background;
    printDemo(s.url, await ensureDemo({ config, db: s.db, signer, jobs, mailer, metrics }));
  });
  if (stopping) {
    await server.close();
    process.exit(0);
  }
}

/**
 * `CRM_PROCESSES` > 1: this process only supervises that many API processes (node:cluster shares the port
 * between them), each a whole `serve` with its own pool; migrations take their advisory lock. One Node process
 * is one event loop, so this is how the API uses more than one core (docs/performance.md). SIGTERM/SIGINT go to
 * every API process (each finishes its in-flight requests); if one dies, the others are stopped and the exit
 * code says so, for the process manager to restart the whole.
 */
export async function superviseApiProcesses(config: Config) {
  if (!config.DATABASE_URL)
    throw new UsageError(
      'CRM_PROCESSES > 1 needs PostgreSQL (DATABASE_URL): the embedded database belongs to one process',
    );
  let stopping = false;
  const stopAll = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
  };
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGINT'));
  cluster.on('exit', (w, code, signal) => {
    if (!stopping) {
      console.error(`API process ${w.process.pid} exited (${signal ?? code}); stopping the others`);
      process.exitCode = 1;
      stopAll('SIGTERM');
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
  });
  // The first process migrates the database and creates the demo organization; the others start once it is
  // ready, so that none of them answers /api/ready before the demo exists (and they do not migrate together).
  const first = cluster.fork({ CRM_PROCESS_INDEX: '0' });
  first.on('message', (m: { crm?: string }) => {
    if (m?.crm !== 'ready' || stopping) return;
    for (let i = 1; i < config.CRM_PROCESSES; i++) cluster.fork({ CRM_PROCESS_INDEX: String(i) });
  });
}

/** A worker process: runs every area's job handlers until SIGTERM/SIGINT, then lets active jobs finish. */
export async function worker(config: Config) {
  const db = await openDatabase(databaseOptions(config));
  await migrateDatabase(db, modules);
  const { jobs, metrics } = await startJobs(config, db, true);
  const log = pino({ level: config.CRM_LOG_LEVEL });
  const maintenance = await startMaintenance(db, modules, config, log, true);
  // A worker process counts its jobs' outcomes: Prometheus scrapes it on its own port.
  const metricsServer =
    config.CRM_METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(metrics, config, config.CRM_METRICS_PORT);
  console.log(
    `CRM worker running (pid ${process.pid}, ${db.kind === 'pglite' ? 'embedded database' : 'PostgreSQL'}${metricsServer ? `, metrics on port ${metricsServer.port}` : ''})`,
  );
  const stop = async () => {
    await metricsServer?.close();
    await maintenance.stop();
    await jobs.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}
