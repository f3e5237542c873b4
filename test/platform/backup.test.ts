import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createGunzip, createGzip } from 'node:zlib';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { readBackup } from '../../src/platform/backup/restore.js';
import { readTar, TarWriter } from '../../src/platform/backup/tar.js';

/**
 * `crm backup` / `crm restore` and the scheduled backups, with real `crm` processes (docs/backups.md), on the
 * backend of the run: the embedded database (default) or PostgreSQL (DATABASE_URL: each test makes databases of
 * its own on that server).
 */

const run = promisify(execFile);
const bin = join(import.meta.dirname, '../../bin/crm.js');
const baseUrl = process.env.DATABASE_URL;
const onPostgres = !!baseUrl;
const dirs: string[] = [];
const children: ChildProcess[] = [];
const databases: string[] = [];

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  if (databases.length) {
    await sleep(500);
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    for (const db of databases)
      await admin.query(`drop database if exists ${db} with (force)`).catch(() => {});
    await admin.end();
  }
});

function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'crm-bk-'));
  dirs.push(d);
  return d;
}

/** A data directory, and on PostgreSQL a new database: the environment of one installation. */
async function installation(): Promise<Record<string, string | undefined>> {
  const env: Record<string, string | undefined> = { CRM_DATA_DIR: tempDir(), DATABASE_URL: undefined };
  if (onPostgres) {
    const name = `crm_bk_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    databases.push(name);
    const url = new URL(baseUrl!);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
  }
  return env;
}

async function crm(args: string[], env: Record<string, string | undefined>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      env: { ...process.env, CRM_LOG_LEVEL: 'warn', ...env },
      timeout: 240_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

/**
 * `crm serve --demo`; resolves with its base URL once `/api/ready` answers 200. The token: the demo's, from the
 * data directory that created it, or the one given (a restored installation has the source's tokens).
 */
async function serve(env: Record<string, string | undefined>, token?: string) {
  const child = spawn(process.execPath, [bin, 'serve', '--demo'], {
    env: {
      ...process.env,
      PORT: '0',
      CRM_LOG_LEVEL: 'info',
      CRM_LOG_FORMAT: 'json',
      RATE_LIMIT_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 4000; i++) {
    if (child.exitCode !== null) throw new Error(`crm serve exited: ${out} ${err}`);
    const base = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (base && (await fetch(`${base}/api/ready`).catch(() => undefined))?.status === 200) {
      return {
        base,
        token:
          token ??
          (JSON.parse(readFileSync(join(env.CRM_DATA_DIR!, 'demo-credentials.json'), 'utf8'))
            .token as string),
        output: () => out,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      };
    }
    await sleep(50);
  }
  throw new Error(`crm serve did not become ready: ${out} ${err}`);
}

type Server = Awaited<ReturnType<typeof serve>>;

async function api(s: Server, method: string, path: string, body?: unknown, token = s.token) {
  const res = await fetch(`${s.base}/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-tenant-id': 'demo',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A board with a file field in its entry phase, and one card holding an uploaded file. */
async function boardWithFile(s: Server) {
  const board = await api(s, 'POST', '/boards', {
    data: {
      name: 'Backup board',
      phases: [
        {
          name: 'Lead',
          slug: 'lead',
          fields: [
            { label: 'Name', slug: 'name', type: 'text' },
            { label: 'CV', slug: 'cv', type: 'file' },
          ],
        },
        { name: 'Won', slug: 'won' },
      ],
    },
  });
  expect(board.status, JSON.stringify(board.body)).toBe(201);
  const boardId = board.body.documentId as string;
  const content = Buffer.from(randomBytes(30_000).toString('hex'));
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), 'cv.txt');
  const up = await fetch(`${s.base}/api/boards/${boardId}/public-upload`, { method: 'POST', body: form });
  const file = (await up.json()) as { documentId: string };
  expect(up.status, JSON.stringify(file)).toBe(201);
  const card = await api(s, 'POST', `/boards/${boardId}/cards`, {
    data: { title: 'with file', value: 1, fields: { name: 'Ana', cv: [file.documentId] } },
  });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  return { boardId, fileId: file.documentId, content };
}

/** Every card of a board, as the API lists them (all pages), and the list's own totals. */
async function allCards(s: Server, boardId: string) {
  const cards: any[] = [];
  let total = -1;
  for (let page = 1; ; page++) {
    const res = await api(
      s,
      'GET',
      `/boards/${boardId}/cards?pagination[page]=${page}&pagination[pageSize]=100`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    cards.push(...res.body.data);
    total = res.body.meta.pagination.total;
    if (res.body.data.length < 100) break;
  }
  return { cards, total };
}

describe('backups and restores', () => {
  test('a backup taken during a write load restores to what the API read at the backup, uploads and token included', {
    timeout: 600_000,
  }, async () => {
    const sourceEnv = await installation();
    const source = await serve(sourceEnv);
    const { boardId, fileId, content } = await boardWithFile(source);

    // Two writers, each creating cards one after another; each write's request start and acknowledgement.
    const writes: { title: string; value: number; startedAt: number; ackedAt?: number }[] = [];
    let loading = true;
    const writer = async (w: number) => {
      for (let i = 0; loading && i < 5000; i++) {
        const write: (typeof writes)[number] = { title: `w${w}-${i}`, value: i + 1, startedAt: Date.now() };
        writes.push(write);
        const res = await api(source, 'POST', `/boards/${boardId}/cards`, {
          data: { title: write.title, value: write.value, fields: { name: write.title } },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        write.ackedAt = Date.now();
        await sleep(5); // a bounded load: hundreds of cards, not thousands
      }
    };
    const load = Promise.all([writer(0), writer(1)]);
    await sleep(1500);
    const file = join(tempDir(), 'mid-load.tar.gz');
    const backupStarted = Date.now();
    const backup = await crm(['backup', file], sourceEnv);
    const backupEnded = Date.now();
    await sleep(1000);
    loading = false;
    await load;
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/Backup written to .*mid-load\.tar\.gz/);
    const before = writes.filter((w) => w.ackedAt! < backupStarted);
    const after = writes.filter((w) => w.startedAt > backupEnded);
    expect(before.length).toBeGreaterThan(3);
    expect(after.length).toBeGreaterThan(0);

    // The source's reads after the load: the restored rows must read the same.
    const sourceCards = await allCards(source, boardId);
    const fileBytes = await fetch(`${source.base}/api/boards/${boardId}/files/${fileId}`, {
      headers: { authorization: `Bearer ${source.token}`, 'x-tenant-id': 'demo' },
    });
    expect(Buffer.from(await fileBytes.arrayBuffer()).equals(content)).toBe(true);
    await source.stop();

    const targetEnv = await installation();
    const restored = await crm(['restore', file], targetEnv);
    expect(restored.code, restored.stderr).toBe(0);
    // The restored installation, in its own data directory: the source's API token works on it.
    const target = await serve(targetEnv, source.token);
    try {
      const got = await allCards(target, boardId);
      const titles = new Set(got.cards.map((c) => c.title));
      // Every write acknowledged before the backup began is there; none begun after it ended.
      for (const w of before) expect(titles.has(w.title), w.title).toBe(true);
      for (const w of after) expect(titles.has(w.title), w.title).toBe(false);
      // Nothing half-written: each writer's cards are a prefix of its sequence, every one whole.
      for (const w of [0, 1]) {
        const mine = got.cards
          .filter((c) => c.title.startsWith(`w${w}-`))
          .map((c) => Number(c.title.slice(3)))
          .sort((a, b) => a - b);
        expect(mine).toEqual(mine.map((_, i) => i));
      }
      // The restored rows read as the source read them (same ids, titles, values, fields, phase).
      const bySource = new Map(sourceCards.cards.map((c) => [c.documentId, c]));
      const shape = (c: any) => ({
        documentId: c.documentId,
        title: c.title,
        value: c.value,
        fields: c.fields,
        currentPhase: c.currentPhase?.documentId ?? c.currentPhase,
        createdAt: c.createdAt,
      });
      for (const c of got.cards) expect(shape(c)).toEqual(shape(bySource.get(c.documentId)));
      // The list's totals agree with its rows.
      expect(got.total).toBe(got.cards.length);
      // The uploaded file comes back byte for byte, through the API.
      const res = await fetch(`${target.base}/api/boards/${boardId}/files/${fileId}`, {
        headers: { authorization: `Bearer ${target.token}`, 'x-tenant-id': 'demo' },
      });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
      // Writes work after the restore.
      const more = await api(target, 'POST', `/boards/${boardId}/cards`, {
        data: { title: 'after restore', fields: { name: 'x' } },
      });
      expect(more.status).toBe(201);
    } finally {
      await target.stop();
    }
  });

  test.skipIf(onPostgres)(
    'scheduled backups: one per interval, never overlapping, the newest CRM_BACKUP_KEEP kept',
    { timeout: 300_000 },
    async () => {
      const env: Record<string, string | undefined> = {
        ...(await installation()),
        CRM_BACKUP_INTERVAL: '1s',
        CRM_BACKUP_KEEP: '2',
      };
      const s = await serve(env);
      const logged = () =>
        s
          .output()
          .split('\n')
          .filter((l) => l.includes('scheduled backup written'))
          .map((l) => JSON.parse(l) as { backup: string; removed: string[] });
      for (let i = 0; i < 1200 && logged().length < 4; i++) await sleep(100);
      await s.stop();
      const lines = logged();
      expect(lines.length).toBeGreaterThanOrEqual(4);
      const dir = join(env.CRM_DATA_DIR!, 'backups');
      const left = readdirSync(dir).sort();
      // The newest two, no temporary file left behind, the older ones removed by rotation.
      const newest = lines.slice(-2).map((l) => l.backup.split('/').pop());
      expect(left).toEqual(newest);
      expect(lines.flatMap((l) => l.removed).length).toBe(lines.length - 2);
      for (const name of left) expect((await readBackup(join(dir, name))).backend).toBe('pglite');
    },
  );

  test('restore refuses a non-empty target without --force, a running server, a newer schema and a damaged file; a backup taken with the service stopped restores', {
    timeout: 600_000,
  }, async () => {
    const env = await installation();
    const s = await serve(env);
    const file = join(tempDir(), 'b.tar.gz');
    const taken = await crm(['backup', file], env);
    expect(taken.code, taken.stderr).toBe(0);
    if (!onPostgres) {
      const busy = await crm(['restore', file, '--force'], env);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/A server \(pid \d+\) is running on the embedded database/);
    }
    const boardsBefore = await api(s, 'GET', '/boards');
    await s.stop();
    // With the service stopped, `crm backup` opens the database itself (on the embedded one, no server holds it).
    const offline = join(tempDir(), 'offline.tar.gz');
    const stopped = await crm(['backup', offline], env);
    expect(stopped.code, stopped.stderr).toBe(0);

    const refused = await crm(['restore', file], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      onPostgres ? /is not empty .*--force/ : /already holds an embedded database.*--force/,
    );

    // A backup from a newer schema: the manifest says a migration this build does not have.
    const newer = join(tempDir(), 'newer.tar.gz');
    await rewrite(file, newer, (m) => ({
      ...m,
      software: '9.9.9',
      schema: { ...m.schema, migration: '0099_future', when: m.schema.when + 1e9 },
    }));
    const future = await crm(['restore', newer, '--force'], env);
    expect(future.code).toBe(1);
    expect(future.stderr).toMatch(
      /crm-service 9\.9\.9 at migration 0099_future.*this build is crm-service \S+, whose newest migration is \d{4}_/,
    );

    // One byte of the database changed: the manifest's sha256 no longer matches.
    const damaged = join(tempDir(), 'damaged.tar.gz');
    await rewrite(file, damaged, (m) => m, true);
    const bad = await crm(['restore', damaged, '--force'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is damaged: database\/\S+ does not match its sha256/);

    const forced = await crm(['restore', file, '--force'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/replacing what was there/);
    const again = await serve(env, s.token);
    expect((await api(again, 'GET', '/boards')).status).toBe(200);
    await again.stop();

    // The backup taken offline restores too, to what the API read before the stop.
    const fromOffline = await crm(['restore', offline, '--force'], env);
    expect(fromOffline.code, fromOffline.stderr).toBe(0);
    const third = await serve(env, s.token);
    const boards = await api(third, 'GET', '/boards');
    expect(boards.status).toBe(200);
    expect(boards.body).toEqual(boardsBefore.body);
    await third.stop();
  });
});

/** Copies a backup with its manifest changed (and, with `damage`, one byte of the first database file flipped). */
async function rewrite(from: string, to: string, change: (m: any) => any, damage = false) {
  const gzip = createGzip();
  const done = pipeline(gzip, createWriteStream(to));
  const tar = new TarWriter(gzip);
  let damaged = !damage;
  for await (const e of readTar(createReadStream(from).pipe(createGunzip()))) {
    if (e.type === 'directory') {
      await tar.addDirectory(e.path);
      continue;
    }
    const parts: Buffer[] = [];
    for await (const c of e.body) parts.push(Buffer.from(c));
    let data = Buffer.concat(parts);
    if (e.path === 'manifest.json') data = Buffer.from(JSON.stringify(change(JSON.parse(data.toString()))));
    else if (!damaged && e.path.startsWith('database/') && data.length > 0) {
      data = Buffer.from(data);
      data[0] = data[0]! ^ 0xff;
      damaged = true;
    }
    await tar.addBuffer(e.path, data);
  }
  await tar.finish();
  await done;
}
