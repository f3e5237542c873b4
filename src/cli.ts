import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { type Config, loadConfig, PLANS, type Plan } from './config.js';
import { ensureDemo } from './modules/organizations/demo.js';
import { findOrganizationBySlug, setOrganizationPlan } from './modules/organizations/repo.js';
import { organizationInput } from './modules/organizations/schema.js';
import { addMember, createOrganization } from './modules/organizations/service.js';
import { findUserByEmail } from './modules/users/repo.js';
import { expirations } from './modules/users/schema.js';
import { issueToken, register } from './modules/users/service.js';
import { sessionSigner } from './platform/auth/tokens.js';
import { openDatabase } from './platform/db/client.js';
import { startMaintenance } from './platform/db/maintenance.js';
import { migrateDatabase } from './platform/db/migrate.js';
import type { AppDeps } from './platform/deps.js';
import { AppError } from './platform/http/errors.js';
import { jobsReport } from './platform/jobs/report.js';
import { instanceSecret } from './platform/secrets/secrets.js';
import { makeTenantContext, ROLES, type Role } from './platform/tenancy/context.js';
import { databaseOptions, type RunningServer, startServer } from './server.js';
import { startJobs } from './workers.js';

const usage = `Usage: crm <command>
  serve [--demo]                       start the API (--demo: create the demo organization on first start)
  worker                               run background jobs (with CRM_WORKERS=external on the API processes)
  jobs                                 background jobs per queue and state, and the latest failures
  migrate                              apply database migrations
  seed-demo                            create the demo organization, user and token, and fill it
  org create SLUG --name NAME          create an organization (with --owner EMAIL)
  org plan SLUG PLAN                   set the plan (${PLANS.join(', ')})
  user create --email E --password P [--username U]
  member add ORG EMAIL --role ROLE     add a registered user to an organization (${ROLES.join(', ')})
  token create --email E --expiration ${expirations.join('|')}`;

class UsageError extends Error {}

async function withDeps<T>(config: Config, fn: (deps: AppDeps) => Promise<T>): Promise<T> {
  const db = await openDatabase(databaseOptions(config));
  try {
    await migrateDatabase(db);
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(db, 'jwt')));
    const { jobs, mailer } = await startJobs(config, db, false);
    try {
      return await fn({ config, db, signer, jobs, mailer });
    } finally {
      await jobs.stop();
    }
  } finally {
    await db.close();
  }
}

function printDemo(url: string, demo: Awaited<ReturnType<typeof ensureDemo>>) {
  const { credentials: creds, created, board } = demo;
  if (!creds) {
    console.log(
      `Demo organization "demo" exists (credentials file not found in the data dir); its board: ${board.name} (${board.documentId}).`,
    );
    return;
  }
  console.log(`
${created ? 'Created the demo organization.' : 'Demo organization:'}
  API:          ${url}/api
  Docs:         ${url}/api/docs
  Organization: ${creds.organization}   (send it as x-tenant-id)
  Login:        ${creds.email} / ${creds.password}
  API token:    ${creds.token}

Try it (the members, then the cards of the board "${board.name}"):
  curl -s -H 'Authorization: Bearer ${creds.token}' -H 'x-tenant-id: ${creds.organization}' ${url}/api/memberships
  curl -s -H 'Authorization: Bearer ${creds.token}' -H 'x-tenant-id: ${creds.organization}' ${url}/api/boards/${board.documentId}/cards
`);
}

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

async function serve(config: Config, demo: boolean) {
  // Signals are handled from the first moment: one arriving during start-up stops the server once it is up.
  let server: RunningServer | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then closing the database`);
    if (!server) return; // start-up sees `stopping` and closes
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  followNpmParent(() => void stop('npm exited'));
  server = await startServer(config, async (s) => {
    if (!demo) return;
    const signer = sessionSigner(config.CRM_JWT_SECRET ?? (await instanceSecret(s.db, 'jwt')));
    const { jobs, mailer } = s.background;
    printDemo(s.url, await ensureDemo({ config, db: s.db, signer, jobs, mailer }));
  });
  if (stopping) {
    await server.close();
    process.exit(0);
  }
  console.log(
    `CRM service listening on ${server.url} (${server.db.kind === 'pglite' ? `embedded database in ${config.CRM_DATA_DIR}/db` : 'PostgreSQL'})`,
  );
}

/**
 * `CRM_PROCESSES` > 1: this process only supervises that many API processes (node:cluster shares the port
 * between them), each a whole `serve` with its own pool; migrations take their advisory lock. One Node process
 * is one event loop, so this is how the API uses more than one core (docs/performance.md). SIGTERM/SIGINT go to
 * every API process (each finishes its in-flight requests); if one dies, the others are stopped and the exit
 * code says so, for the process manager to restart the whole.
 */
async function superviseApiProcesses(config: Config) {
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
  for (let i = 0; i < config.CRM_PROCESSES; i++) cluster.fork({ CRM_PROCESS_INDEX: String(i) });
}

/** A worker process: runs every area's job handlers until SIGTERM/SIGINT, then lets active jobs finish. */
async function worker(config: Config) {
  const db = await openDatabase(databaseOptions(config));
  await migrateDatabase(db);
  const { jobs } = await startJobs(config, db, true);
  const log = pino({ level: config.CRM_LOG_LEVEL });
  const maintenance = await startMaintenance(db, config, log, true);
  console.log(
    `CRM worker running (pid ${process.pid}, ${db.kind === 'pglite' ? 'embedded database' : 'PostgreSQL'})`,
  );
  const stop = async () => {
    await maintenance.stop();
    await jobs.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      demo: { type: 'boolean' },
      name: { type: 'string' },
      owner: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      username: { type: 'string' },
      role: { type: 'string' },
      expiration: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, sub, ...rest] = positionals;
  if (values.help || !cmd) {
    console.log(usage);
    return cmd || values.help ? 0 : 1;
  }
  const config = loadConfig();
  const need = (v: string | undefined, what: string) => {
    if (!v) throw new UsageError(`missing ${what}`);
    return v;
  };
  switch (cmd) {
    case 'serve':
      if (config.CRM_PROCESSES > 1 && cluster.isPrimary) await superviseApiProcesses(config);
      // In a cluster only the first API process creates the demo organization.
      else await serve(config, (values.demo ?? false) && (process.env.CRM_PROCESS_INDEX ?? '0') === '0');
      return -1; // keeps running
    case 'worker':
      await worker(config);
      return -1; // keeps running
    case 'jobs':
      await withDeps(config, async ({ db }) => {
        const { counts, failed } = await jobsReport(db);
        for (const c of counts) console.log(`${c.queue.padEnd(24)} ${c.state.padEnd(10)} ${c.count}`);
        if (failed.length) console.log('\nLatest failures:');
        for (const f of failed)
          console.log(`${f.failedAt} ${f.queue} ${f.id} (${f.retryCount} retries): ${f.error}`);
      });
      return 0;
    case 'migrate':
      await withDeps(config, async () => {});
      console.log('Migrations applied.');
      return 0;
    case 'seed-demo':
      await withDeps(config, async (deps) => {
        printDemo(`http://${config.HOST}:${config.PORT}`, await ensureDemo(deps));
      });
      return 0;
    case 'org': {
      if (sub === 'create') {
        const slug = need(rest[0], 'SLUG');
        const ownerEmail = values.owner;
        // The same schema as POST /organizations: a slug the API would refuse is refused here too.
        const input = organizationInput.safeParse({ name: values.name ?? slug, slug });
        if (!input.success) {
          const why = input.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
          throw new UsageError(`invalid organization (${why})`);
        }
        await withDeps(config, async (deps) => {
          const owner = ownerEmail ? await findUserByEmail(deps.db.system, ownerEmail) : undefined;
          if (ownerEmail && !owner) throw new UsageError(`no user with email ${ownerEmail}`);
          if (!owner) throw new UsageError('an organization needs an owner: --owner EMAIL');
          const { org } = await createOrganization(deps, owner.id, input.data);
          console.log(`Created organization ${org.slug} (${org.plan}), owner ${ownerEmail}.`);
        });
        return 0;
      }
      if (sub === 'plan') {
        const slug = need(rest[0], 'SLUG');
        const plan = need(rest[1], 'PLAN') as Plan;
        if (!PLANS.includes(plan)) throw new UsageError(`plan must be one of ${PLANS.join(', ')}`);
        await withDeps(config, async (deps) => {
          if (!(await setOrganizationPlan(deps.db.system, slug, plan)))
            throw new UsageError(`no organization ${slug}`);
          console.log(`Organization ${slug} is now on the ${plan} plan.`);
        });
        return 0;
      }
      throw new UsageError(`unknown org command ${sub ?? ''}`);
    }
    case 'user': {
      if (sub !== 'create') throw new UsageError(`unknown user command ${sub ?? ''}`);
      const email = need(values.email, '--email');
      const password = need(values.password, '--password');
      await withDeps(config, async (deps) => {
        const { user } = await register(deps, {
          email,
          password,
          username: values.username ?? email.split('@')[0],
        });
        console.log(`Created user ${user.username} <${user.email}> (id ${user.id}).`);
      });
      return 0;
    }
    case 'member': {
      if (sub !== 'add') throw new UsageError(`unknown member command ${sub ?? ''}`);
      const slug = need(rest[0], 'ORG');
      const email = need(rest[1], 'EMAIL');
      const role = (values.role ?? 'member') as Role;
      if (!ROLES.includes(role)) throw new UsageError(`role must be one of ${ROLES.join(', ')}`);
      await withDeps(config, async (deps) => {
        const org = await findOrganizationBySlug(deps.db.system, slug);
        if (!org) throw new UsageError(`no organization ${slug}`);
        // The CLI acts as the operator: an owner context of that organization.
        const ctx = makeTenantContext(deps.db, {
          orgId: org.id,
          orgSlug: org.slug,
          plan: org.plan as Plan,
          userId: 0,
          membershipId: 0,
          membershipDocumentId: '',
          role: 'owner',
          scopes: null,
        });
        const m = await addMember(ctx, { email, role });
        console.log(`Added ${email} to ${slug} as ${m.role} (membership ${m.documentId}).`);
      });
      return 0;
    }
    case 'token': {
      if (sub !== 'create') throw new UsageError(`unknown token command ${sub ?? ''}`);
      const email = need(values.email, '--email');
      const expiration = (values.expiration ?? '30d') as (typeof expirations)[number];
      if (!expirations.includes(expiration))
        throw new UsageError(`--expiration must be one of ${expirations.join(', ')}`);
      await withDeps(config, async (deps) => {
        const user = await findUserByEmail(deps.db.system, email);
        if (!user) throw new UsageError(`no user with email ${email}`);
        const t = await issueToken(deps, user.id, { expiration, name: 'CLI token' });
        console.log(t.token);
      });
      return 0;
    }
    default:
      throw new UsageError(`unknown command ${cmd}`);
  }
}

const isEntry = process.argv[1] && /cli\.(ts|js)$|\/crm(\.js)?$/.test(process.argv[1]);
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (err) => {
      if (err instanceof UsageError) console.error(`crm: ${err.message}\n\n${usage}`);
      else if (err instanceof AppError)
        console.error(
          `crm: ${err.message}${Object.keys(err.details).length ? ` ${JSON.stringify(err.details)}` : ''}`,
        );
      else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
        console.error(
          `crm: port ${process.env.PORT ?? 1337} is already in use (another crm serve?): stop it, or set PORT, e.g. PORT=1338 npm start`,
        );
      else console.error(`crm: ${(err as Error).message}`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
