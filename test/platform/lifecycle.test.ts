import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, test } from 'vitest';

/**
 * Readiness and shutdown of a real `crm serve --demo` process (issue 28 items 4 and 6): `/api/ready` is 503
 * until the demo exists and the banner is printed, and again from SIGTERM on, while a request in flight still
 * completes and an open event stream ends with a `retry:` hint.
 */
// The embedded database on both CI passes: readiness does not depend on the backend, and a shared PostgreSQL
// database may already hold a demo organization whose credentials this data directory lacks.
const bin = join(import.meta.dirname, '../../bin/crm.js');
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function start(env: Record<string, string>, dataDir = mkdtempSync(join(tmpdir(), 'crm-life-'))) {
  dirs.push(dataDir);
  const child = spawn(process.execPath, [bin, 'serve', '--demo'], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: '0',
      CRM_LOG_LEVEL: 'warn',
      CRM_DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const waitFor = async (re: RegExp) => {
    // By the clock, not a count of polls: a loaded machine may take minutes to start the process.
    for (const end = Date.now() + 240_000; Date.now() < end && child.exitCode === null; ) {
      const m = re.exec(out);
      if (m) return m;
      await sleep(20);
    }
    throw new Error(`not seen ${re}: ${out}`);
  };
  return { child, exited, waitFor, output: () => out, dataDir };
}

const probe = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
};

describe('readiness and shutdown of crm serve', () => {
  test('503 until the demo exists and the banner is out; 503 while stopping; in-flight work finishes', async () => {
    const s = start({ CRM_SHUTDOWN_DELAY_SECONDS: '1' });
    const base = (await s.waitFor(/listening on (http:\/\/\S+)/))[1];
    // Liveness answers while starting; readiness does not, until the demo organization is there.
    expect((await probe(`${base}/api/health`)).status).toBe(200);
    const early: number[] = [];
    let ready: { status: number; body: any } | undefined;
    for (let i = 0; i < 6000 && !ready; i++) {
      const r = await probe(`${base}/api/ready`);
      if (r.status === 200) ready = r;
      else {
        expect(r.body).toEqual({ status: 'starting', db: 'unknown' });
        early.push(r.status);
      }
    }
    expect(ready?.body).toEqual({ status: 'ready', db: 'ok' });
    expect(early.length).toBeGreaterThan(0);
    // The banner came before readiness (stdout is read asynchronously here: give it a moment to arrive).
    const token = (await s.waitFor(/API token: +(crm_pat_\w+)/))[1];
    const auth = { authorization: `Bearer ${token}`, 'x-tenant-id': 'demo' };

    // A live inbox stream, open when the shutdown begins.
    const stream = await fetch(`${base}/api/conversations/events`, {
      headers: { ...auth, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    const streamText = new Response(stream.body).text();

    // A request in flight: headers sent, body held back until the shutdown has begun.
    const body = JSON.stringify({ data: { name: 'Chegou durante o desligamento' } });

    const req = request(`${base}/api/contacts`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    await sleep(100);

    s.child.kill('SIGTERM');
    await s.waitFor(/SIGTERM: not ready any more/);
    // During the delay: not ready, still alive and serving.
    expect(await probe(`${base}/api/ready`)).toEqual({
      status: 503,
      body: { status: 'stopping', db: 'unknown' },
    });
    expect((await probe(`${base}/api/health`)).status).toBe(200);
    await sleep(1200); // past the delay: the server no longer accepts connections
    await expect(fetch(`${base}/api/health`)).rejects.toThrow();

    req.end(body);
    const res = await answered;
    expect(res.status, res.body).toBe(201);
    expect(res.body).toContain('Chegou durante o desligamento');
    expect(await streamText).toMatch(/retry: \d+\n/);
    expect(await s.exited).toBe(0);
  }, 300_000);

  test('SIGTERM lets the job a worker is running finish: a webhook delivery in flight is recorded once, never sent again', async () => {
    // A receiver that holds its first answer until the shutdown has begun.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const got: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', async () => {
        got.push(JSON.parse(body).id);
        if (got.length === 1) await released;
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      const env = { CRM_OUTBOUND_ALLOWLIST: '127.0.0.1', CRM_SHUTDOWN_DELAY_SECONDS: '0' };
      const s = start(env);
      const base = (await s.waitFor(/listening on (http:\/\/\S+)/))[1];
      const token = (await s.waitFor(/API token: +(crm_pat_\w+)/))[1];
      for (let i = 0; i < 6000 && (await probe(`${base}/api/ready`)).status !== 200; i++) await sleep(20);
      const headers = {
        authorization: `Bearer ${token}`,
        'x-tenant-id': 'demo',
        'content-type': 'application/json',
      };
      const post = (path: string, data: unknown) =>
        fetch(`${base}/api${path}`, { method: 'POST', headers, body: JSON.stringify({ data }) });
      const sub = await post('/webhook-subscriptions', { url, events: ['contact.created'] });
      expect(sub.status).toBe(201);
      const subscription = ((await sub.json()) as { documentId: string }).documentId;
      expect((await post('/contacts', { name: 'Entregue no desligamento' })).status).toBe(201);
      for (let i = 0; i < 3000 && got.length === 0; i++) await sleep(20);
      expect(got).toHaveLength(1);

      s.child.kill('SIGTERM');
      await s.waitFor(/SIGTERM: not ready any more/);
      await sleep(1500); // the process is stopping, its worker still waiting for the receiver
      release();
      expect(await s.exited).toBe(0);

      // Started again on the same data: the delivery is recorded as delivered and nothing is sent twice.
      const again = start(env, s.dataDir);
      const base2 = (await again.waitFor(/listening on (http:\/\/\S+)/))[1];
      for (let i = 0; i < 6000 && (await probe(`${base2}/api/ready`)).status !== 200; i++) await sleep(20);
      const log = await fetch(`${base2}/api/webhook-subscriptions/${subscription}/deliveries`, { headers });
      expect(log.status).toBe(200);
      const deliveries = ((await log.json()) as { data: { status: string }[] }).data;
      expect(deliveries.map((d) => d.status)).toEqual(['delivered']);
      await sleep(3000);
      expect(got).toHaveLength(1);
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    } finally {
      release();
      receiver.close();
    }
  }, 300_000);

  test('an invalid configuration lists every error at once and does not start', async () => {
    const s = start({ PORT: 'abc', DATABASE_URL: 'mysql://x', CRM_ENCRYPTION_KEY: 'short' });
    expect(await s.exited).toBe(1);
    const out = s.output();
    expect(out).toContain('Invalid configuration (3 errors)');
    for (const name of ['PORT', 'DATABASE_URL', 'CRM_ENCRYPTION_KEY']) expect(out).toContain(`${name}:`);
  });
});
