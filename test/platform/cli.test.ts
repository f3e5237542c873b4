import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { unique } from '../helpers/app.js';

const run = promisify(execFile);
const bin = join(import.meta.dirname, '../../bin/crm.js');
const dirs: string[] = [];
const children: ChildProcess[] = [];

function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'crm-cli-'));
  dirs.push(d);
  return d;
}

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function crm(args: string[], env: Record<string, string | undefined>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: { ...process.env, ...env },
      timeout: 150_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

/** Starts `crm serve` and resolves once it printed its listening line and `GET /api/ready` answers 200. */
function serve(env: Record<string, string | undefined>, args = ['serve', '--demo']) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start: ${out} ${err}`)), 150_000);
    let polling = false;
    child.stdout.on('data', async () => {
      const base = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (!base || polling) return;
      polling = true;
      for (let i = 0; i < 3000 && child.exitCode === null; i++) {
        if ((await fetch(`${base}/api/ready`).catch(() => undefined))?.status === 200) {
          clearTimeout(timer);
          resolve(out);
          return;
        }
        await sleep(50);
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited: ${out} ${err}`));
    });
  });
  return { child, ready, exited, output: () => out, errors: () => err };
}

describe('crm CLI', () => {
  test('user, org, member, plan and token commands; clear errors and non-zero exits', async () => {
    const env = { CRM_DATA_DIR: tempDir(), CRM_LOG_LEVEL: 'silent' };
    const owner = `${unique('owner')}@cli.example`;
    const other = `${unique('other')}@cli.example`;
    const slug = unique('cli-');
    expect((await crm(['migrate'], env)).stdout).toContain('Migrations applied');
    // seed-demo is idempotent: the demo organization once (its credentials file lives in the data dir).
    const seeded = await crm(['seed-demo'], env);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toMatch(/demo organization/i);
    const reseeded = await crm(['seed-demo'], env);
    expect(reseeded.code, reseeded.stderr).toBe(0);
    expect(reseeded.stdout).not.toContain('Created the demo organization');
    expect(
      (
        await crm(
          ['user', 'create', '--email', owner, '--password', 'pw-long-enough', '--username', unique('o')],
          env,
        )
      ).code,
    ).toBe(0);
    expect((await crm(['user', 'create', '--email', other, '--password', 'pw-long-enough'], env)).code).toBe(
      0,
    );
    const org = await crm(['org', 'create', slug, '--name', 'CLI Org', '--owner', owner], env);
    expect(org.code).toBe(0);
    expect(org.stdout).toContain(slug);
    const member = await crm(['member', 'add', slug, other, '--role', 'admin'], env);
    expect(member.stdout).toContain('as admin');
    expect((await crm(['org', 'plan', slug, 'free'], env)).stdout).toContain('free plan');
    const token = await crm(['token', 'create', '--email', owner, '--expiration', '30d'], env);
    expect(token.stdout.trim()).toMatch(/^crm_pat_/);

    const bad = [
      ['frobnicate'],
      ['org', 'plan', slug, 'platinum'],
      ['member', 'add', slug, other, '--role', 'king'],
      ['token', 'create', '--email', owner, '--expiration', '7d'],
      ['user', 'create', '--password', 'x'],
    ];
    for (const args of bad) {
      const res = await crm(args, env);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toMatch(/^crm: /);
    }
    const missingOrg = await crm(['org', 'plan', 'no-such-org', 'pro'], env);
    expect(missingOrg.code).not.toBe(0);
    expect(missingOrg.stderr).toContain('no organization');
    const dupUser = await crm(['user', 'create', '--email', owner, '--password', 'pw-long-enough'], env);
    expect(dupUser.code).toBe(1);
    expect(dupUser.stderr).toContain('already taken');
  }, 900_000); // a dozen process starts, one of them seeding the demo, on a possibly busy machine

  test('first start: demo organization, printed curl works as printed, lock refuses a second process, SIGTERM closes cleanly', async () => {
    // The first start is about the embedded database: no DATABASE_URL.
    const env = { CRM_DATA_DIR: tempDir(), DATABASE_URL: undefined, PORT: '0', CRM_LOG_LEVEL: 'warn' };
    const first = serve(env);
    const out = await first.ready;
    expect(out).toContain('Created the demo organization');
    expect(out).toMatch(/Login: +\S+@example\.com \/ \S+/);
    const [curl, cardsCurl] = out
      .split('\n')
      .filter((l) => l.trim().startsWith('curl '))
      .map((l) => l.trim());
    const { stdout } = await run('sh', ['-c', curl]);
    const body = JSON.parse(stdout);
    expect(body.data[0]).toMatchObject({ role: 'owner' });
    expect(body.data).toHaveLength(4); // the owner and the three demo members
    // The second curl lists the cards of the seeded pt-BR funnel (src/demo/seed.ts): 6 phases × 60 cards.
    const cards = JSON.parse((await run('sh', ['-c', cardsCurl])).stdout);
    expect(cards.meta.pagination.total).toBe(360);
    expect(cards.data[0]).toMatchObject({ title: expect.any(String), value: expect.any(Number) });
    expect(cards.meta.stats.overdueCount).toBeGreaterThan(0);

    const base = curl.match(/(http:\/\/\S+)\/api/)![1];
    const health = await fetch(`${base}/api/health`);
    expect(await health.json()).toEqual({
      status: 'ok',
      db: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });

    const second = await crm(['serve'], { ...env, PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('in use by another process');

    // SIGTERM while a request is in flight (headers sent, body not yet): it still gets its answer.
    const [, email, password] = out.match(/Login: +(\S+) \/ (\S+)/)!;
    const login = JSON.stringify({ identifier: email, password });
    const req = request(`${base}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(login) },
    });
    const answered = new Promise<{ status?: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      req.on('error', reject);
    });
    req.write(login.slice(0, 5));
    await sleep(300);
    first.child.kill('SIGTERM');
    await sleep(300);
    req.end(login.slice(5));
    const inFlight = await answered;
    expect(inFlight.status).toBe(200);
    expect(JSON.parse(inFlight.body).jwt).toBeTruthy();
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('SIGTERM: not ready any more; finishing in-flight requests');

    // Restarted on the same data: no new demo, the same credentials are shown again.
    const again = serve(env);
    const out2 = await again.ready;
    expect(out2).toContain('Demo organization:');
    expect(out2).toContain(curl.match(/crm_pat_\w+/)![0]);
    // The same board, not a second one (the port differs: PORT=0).
    expect(out2).toContain(cardsCurl.match(/\/api\/boards\/\w+\/cards/)![0]);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 600_000);

  test.skipIf(!process.env.DATABASE_URL)(
    'CRM_PROCESSES=2: two API processes share the port, one creates the demo, SIGTERM stops both cleanly',
    async () => {
      // Port 0 in a cluster: the primary picks one free port and both API processes listen on it.
      const s = serve({ CRM_PROCESSES: '2', PORT: '0', CRM_LOG_LEVEL: 'warn', CRM_DATA_DIR: tempDir() });
      await s.ready;
      const listening = () => s.output().match(/listening on (http:\/\/\S+)/g) ?? [];
      for (let i = 0; i < 300 && listening().length < 2; i++) await sleep(100);
      expect(listening(), s.output() + s.errors()).toHaveLength(2);
      const base = s.output().match(/listening on (http:\/\/\S+)/)![1];
      for (let i = 0; i < 6; i++)
        expect(await (await fetch(`${base}/api/health`)).json()).toMatchObject({ status: 'ok', db: 'ok' });
      expect(s.output().match(/demo organization/gi), s.output()).toHaveLength(1);
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
      expect(s.output().match(/SIGTERM: not ready any more/g)).toHaveLength(2);
    },
    300_000,
  );

  test('org create validates the slug as the API does, before opening the database', async () => {
    const res = await crm(['org', 'create', 'Bad Slug!', '--owner', 'nobody@example.test'], {
      CRM_DATA_DIR: tempDir(),
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('invalid organization (slug: lowercase letters, digits and dashes)');
    const zone = await crm(
      ['org', 'create', 'good-slug', '--owner', 'x@example.test', '--time-zone', 'Mars/Olympus'],
      {
        CRM_DATA_DIR: tempDir(),
      },
    );
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain('invalid organization (timeZone:');
  });

  test('CRM_PROCESSES > 1 on the embedded database is a clear usage error', async () => {
    const res = await crm(['serve'], {
      CRM_PROCESSES: '2',
      DATABASE_URL: undefined,
      CRM_DATA_DIR: tempDir(),
      PORT: '0',
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('needs PostgreSQL');
  });

  test('crm config check: every error at once, cross-variable rules included; the valid settings with credentials hidden', async () => {
    const bad = await crm(['config', 'check'], {
      PORT: 'abc',
      CRM_ENCRYPTION_KEY: 'short',
      CORS_ORIGINS: '*',
      CORS_CREDENTIALS: 'true',
      DATABASE_REPLICA_URL: 'postgres://127.0.0.1:1/replica',
      DATABASE_URL: undefined,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Invalid configuration (4 errors)');
    for (const line of [
      'PORT:',
      'CRM_ENCRYPTION_KEY:',
      'CORS_ORIGINS: `*` is not allowed with CORS_CREDENTIALS=true',
      'DATABASE_REPLICA_URL: needs DATABASE_URL',
    ])
      expect(bad.stderr).toContain(line);
    const good = await crm(['config', 'check'], {
      DATABASE_URL: 'postgres://crm:hunter2-password@127.0.0.1:5432/crm',
      CRM_METRICS_TOKEN: 'metrics-token-0123456789',
      PORT: '4321',
      CRM_DATA_DIR: tempDir(),
    });
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('Configuration is valid (PostgreSQL)');
    expect(good.stdout).toContain('PORT=4321');
    expect(good.stdout).toContain('DATABASE_URL=(set)');
    expect(good.stdout).toContain('CRM_METRICS_TOKEN=(set)');
    expect(good.stdout).not.toContain('hunter2');
    expect(good.stdout).not.toContain('metrics-token-0123456789');
  });

  test('crm --version prints the software version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    const res = await crm(['--version'], {});
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe(version);
  });

  test('the entry point loads only argument parsing and configuration; each verb imports its own code', () => {
    const source = readFileSync(join(import.meta.dirname, '../../src/cli.ts'), 'utf8');
    const staticImports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(staticImports.filter((m) => !m.startsWith('node:')).sort()).toEqual([
      './cli/usage.js',
      './config.js',
    ]);
    expect(source).toContain("await import('./cli/serve.js')");
    expect(source).toContain("await import('./cli/admin.js')");
  });
});
