import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { UsageError } from './cli/usage.js';
import { loadConfig, PLANS } from './config.js';

/**
 * The `crm` command. Only argument parsing and configuration load here: each verb imports what it needs
 * when it runs (the server and every module for `serve`, the database and one service for an admin verb),
 * so `crm --help` or a mistyped verb answers at once and an admin verb does not load the HTTP stack.
 */

const usage = `Usage: crm <command>
  serve [--demo]                       start the API (--demo: create the demo organization on first start)
  worker                               run background jobs (with CRM_WORKERS=external on the API processes)
  jobs                                 background jobs per queue and state, and the latest failures
  migrate                              apply database migrations
  seed-demo                            create the demo organization, user and token, and fill it
  org create SLUG --name NAME          create an organization (with --owner EMAIL [--time-zone America/Sao_Paulo])
  org plan SLUG PLAN                   set the plan (${PLANS.join(', ')})
  org import FILE                      load an organization export (POST /organizations/{id}/export), ids kept
  user create --email E --password P [--username U]
  user password --email E --password P set a user's password (e.g. one \`org import\` created)
  member add ORG EMAIL --role ROLE     add a registered user to an organization (owner, admin, member, viewer)
  token create --email E --expiration 1d|30d|365d|36500d
  backup FILE                          write a backup (database and uploaded files) while the service runs or not
  restore FILE [--force]               restore a backup (--force: over a database that is not empty), then migrate
  config check                         validate the configuration (environment) and list every error at once
  --version                            print the software version`;

const ADMIN_VERBS = ['jobs', 'migrate', 'seed-demo', 'org', 'user', 'member', 'token'];

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
      'time-zone': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      force: { type: 'boolean' },
      version: { type: 'boolean', short: 'v' },
    },
  });
  const [cmd, sub, ...rest] = positionals;
  if (values.version) {
    const { SOFTWARE_VERSION } = await import('./platform/version.js');
    console.log(SOFTWARE_VERSION);
    return 0;
  }
  if (cmd === 'config') {
    if (sub !== 'check') throw new UsageError('config: the only subcommand is `crm config check`');
    const { checkConfig } = await import('./cli/config-check.js');
    return checkConfig(process.env);
  }
  if (values.help || !cmd) {
    console.log(usage);
    return cmd || values.help ? 0 : 1;
  }
  if (cmd === 'backup' || cmd === 'restore') {
    const { runBackupVerb } = await import('./cli/backup.js');
    return runBackupVerb(cmd, loadConfig(), sub, values.force ?? false);
  }
  if (cmd !== 'serve' && cmd !== 'worker' && !ADMIN_VERBS.includes(cmd))
    throw new UsageError(`unknown command ${cmd}`);
  const config = loadConfig();
  if (cmd === 'serve') {
    const { serve, superviseApiProcesses } = await import('./cli/serve.js');
    if (config.CRM_PROCESSES > 1 && cluster.isPrimary) await superviseApiProcesses(config);
    // In a cluster only the first API process creates the demo organization.
    else await serve(config, (values.demo ?? false) && (process.env.CRM_PROCESS_INDEX ?? '0') === '0');
    return -1; // keeps running
  }
  if (cmd === 'worker') {
    const { worker } = await import('./cli/serve.js');
    await worker(config);
    return -1; // keeps running
  }
  const { runAdmin } = await import('./cli/admin.js');
  return runAdmin(cmd, config, { sub, rest, values: { ...values, timeZone: values['time-zone'] } });
}

/** What a failure prints: a usage mistake with the usage, a refused operation with its details. */
function report(err: unknown): number {
  const e = err as Error & { errorName?: string; details?: Record<string, unknown>; code?: string };
  if (err instanceof UsageError) console.error(`crm: ${e.message}\n\n${usage}`);
  else if (e.errorName && e.details)
    console.error(`crm: ${e.message}${Object.keys(e.details).length ? ` ${JSON.stringify(e.details)}` : ''}`);
  else if (e.code === 'EADDRINUSE')
    console.error(
      `crm: port ${process.env.PORT ?? 1337} is already in use (another crm serve?): stop it, or set PORT, e.g. PORT=1338 npm start`,
    );
  else console.error(`crm: ${e.message}`);
  return err instanceof UsageError ? 2 : 1;
}

const isEntry = process.argv[1] && /cli\.(ts|js)$|\/crm(\.js)?$/.test(process.argv[1]);
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (err) => process.exit(report(err)),
  );
}
