/**
 * The stock Strapi v5 application bench/strapi.ts measures, kept outside the repository (`--strapi-dir`): created
 * when missing (package.json with the latest @strapi/strapi 5.x, `npm install` under nice, the config files and
 * src/index.js of bench/strapi/app, the content types of bench/strapi/content-types with the core router,
 * controller and service every generated API has), then started with `strapi start` as its own process.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { benchDir } from '../lib.js';

const templateDir = join(benchDir, 'strapi');
export const strapiDatabase = 'strapi_bench';
export const strapiDatabaseUrl = `postgres://postgres@127.0.0.1:5432/${strapiDatabase}`;
/** What a Strapi 5 app on PostgreSQL installs (create-strapi-app's list, less the cloud plugin; pg for the client). */
const strapiPackages = ['@strapi/strapi', '@strapi/database', '@strapi/plugin-users-permissions'] as const;
const thirdParty = {
  pg: '^8.13.0',
  react: '^18.0.0',
  'react-dom': '^18.0.0',
  'react-router-dom': '^6.30.3',
  'styled-components': '^6.0.0',
};

const tokenFile = (dir: string) => join(dir, '.bench-token');

function run(cmd: string, args: string[], cwd: string) {
  const res = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd} (exit ${res.status})`);
}

const released5 = (pkg: string): string[] => {
  const res = spawnSync('npm', ['view', `${pkg}@5`, 'version', '--json'], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`npm view ${pkg}@5 failed: ${res.stderr}`);
  const versions = JSON.parse(res.stdout) as string | string[];
  return (Array.isArray(versions) ? versions : [versions]).filter((v) => !v.includes('-'));
};
const semverOrder = (a: string, b: string) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/**
 * The newest 5.x of @strapi/strapi whose sibling packages are published at the same version too (a registry can
 * carry @strapi/strapi a release ahead of @strapi/core, and that release does not install).
 */
function latestStrapi5(): string {
  const lists = [...strapiPackages, '@strapi/core', '@strapi/admin'].map((p) => new Set(released5(p)));
  const common = [...lists[0]].filter((v) => lists.every((l) => l.has(v))).sort(semverOrder);
  if (common.length === 0) throw new Error('no @strapi/strapi 5.x with its packages on the registry');
  return common[common.length - 1];
}

/** The installed Strapi version, or undefined before `npm install`. */
export function installedStrapiVersion(dir: string): string | undefined {
  const file = join(dir, 'node_modules', '@strapi', 'strapi', 'package.json');
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
    : undefined;
}

/** The app's API folder for one content type: its schema and the three core factories. */
function writeContentType(dir: string, schemaFile: string) {
  const schema = JSON.parse(readFileSync(join(templateDir, 'content-types', schemaFile), 'utf8'));
  const name: string = schema.info.singularName;
  const uid = `api::${name}.${name}`;
  const api = join(dir, 'src', 'api', name);
  mkdirSync(join(api, 'content-types', name), { recursive: true });
  writeFileSync(join(api, 'content-types', name, 'schema.json'), `${JSON.stringify(schema, null, 2)}\n`);
  for (const [kind, factory] of [
    ['routes', 'createCoreRouter'],
    ['controllers', 'createCoreController'],
    ['services', 'createCoreService'],
  ]) {
    mkdirSync(join(api, kind), { recursive: true });
    writeFileSync(
      join(api, kind, `${name}.js`),
      `'use strict';\n\nconst { factories } = require('@strapi/strapi');\n\nmodule.exports = factories.${factory}('${uid}');\n`,
    );
  }
}

/**
 * Creates or refreshes the app in `dir`: package.json and `npm install` once; config, src/index.js, the content
 * types and .env (fresh secrets, once) every time, so a schema changed in the repository reaches the app.
 */
export function ensureStrapiApp(dir: string, log: (msg: string) => void) {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) {
    const version = latestStrapi5();
    log(`strapi: creating ${dir} with @strapi/strapi ${version}`);
    const pkg = {
      name: 'strapi-bench',
      private: true,
      version: '0.1.0',
      description:
        'A stock Strapi v5 application for bench/strapi.ts of the CRM service (generated; not edited)',
      scripts: { start: 'strapi start', strapi: 'strapi' },
      dependencies: {
        ...Object.fromEntries(strapiPackages.map((p) => [p, version])),
        ...thirdParty,
      },
      engines: { node: '>=20.0.0 <=24.x.x', npm: '>=6.0.0' },
      strapi: { telemetryDisabled: true },
    };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  }
  if (!installedStrapiVersion(dir)) {
    log('strapi: npm install (under nice; a few minutes)');
    run('nice', ['-n', '19', 'npm', 'install', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  }
  cpSync(join(templateDir, 'app'), dir, { recursive: true });
  // The upload plugin (part of @strapi/strapi) refuses to start without its folder.
  mkdirSync(join(dir, 'public', 'uploads'), { recursive: true });
  rmSync(join(dir, 'src', 'api'), { recursive: true, force: true });
  for (const file of readdirSync(join(templateDir, 'content-types')).filter((f) => f.endsWith('.json')))
    writeContentType(dir, file);
  if (!existsSync(join(dir, '.env'))) {
    const secret = () => randomBytes(16).toString('base64');
    writeFileSync(
      join(dir, '.env'),
      [
        `APP_KEYS=${[secret(), secret(), secret(), secret()].join(',')}`,
        `API_TOKEN_SALT=${secret()}`,
        `ADMIN_JWT_SECRET=${secret()}`,
        `TRANSFER_TOKEN_SALT=${secret()}`,
        `JWT_SECRET=${secret()}`,
        `ENCRYPTION_KEY=${secret()}`,
        'STRAPI_TELEMETRY_DISABLED=true',
        '',
      ].join('\n'),
    );
  }
}

/** Creates the Strapi app's database when missing (Strapi creates its tables at its first start). */
export async function ensureStrapiDatabase(log: (msg: string) => void) {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [strapiDatabase]);
    if (found.rowCount === 0) {
      await client.query(`create database ${strapiDatabase}`);
      log(`strapi: created database ${strapiDatabase}`);
    }
  } finally {
    await client.end();
  }
}

export interface StrapiProcess {
  child: ChildProcess;
  port: number;
  token: string;
  version: string;
}

/**
 * `strapi start` in `dir` (NODE_ENV=production, the JavaScript app needs no build) on 127.0.0.1:`port`, its output
 * in `dir`/strapi.log; resolves once /_health answers and the bootstrap has written the API token.
 */
export async function startStrapi(dir: string, port: number): Promise<StrapiProcess> {
  rmSync(tokenFile(dir), { force: true });
  const out = openSync(join(dir, 'strapi.log'), 'a');
  const child = spawn(
    process.execPath,
    [join(dir, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js'), 'start'],
    {
      cwd: dir,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_NAME: strapiDatabase,
        BENCH_TOKEN_FILE: tokenFile(dir),
        // Ours is told by DATABASE_URL; Strapi's config reads DATABASE_NAME and friends.
        DATABASE_URL: '',
      },
      stdio: ['ignore', out, out],
    },
  );
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`strapi exited with code ${child.exitCode}: see ${join(dir, 'strapi.log')}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/_health`);
      if (res.ok && existsSync(tokenFile(dir)))
        return {
          child,
          port,
          token: readFileSync(tokenFile(dir), 'utf8').trim(),
          version: installedStrapiVersion(dir) ?? '?',
        };
    } catch {}
    await sleep(500);
  }
  child.kill('SIGTERM');
  throw new Error(`strapi did not answer /_health in 300 s: see ${join(dir, 'strapi.log')}`);
}
