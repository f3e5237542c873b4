import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Database, openDatabase, queryRows } from '../../src/platform/db/client.js';
import { createJobs, type Jobs, type QueueDef, queueNameIn } from '../../src/platform/jobs/jobs.js';
import { jobsReport } from '../../src/platform/jobs/report.js';
import { testConfig, unique } from '../helpers/app.js';

const config = testConfig({ CRM_JOBS_POLL_SECONDS: 0.5, CRM_JOBS_MAINTENANCE_SECONDS: 1 });
const queue = (extra: Partial<QueueDef> = {}): QueueDef => ({ name: unique('test-'), ...extra });

async function until(cond: () => boolean | Promise<boolean>, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('jobs on the test database', () => {
  let db: Database;
  let jobs: Jobs;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: 'memory://', poolSize: 5 });
    jobs = createJobs(db, config);
    await jobs.start({ workers: true });
  });
  afterAll(async () => {
    await jobs.stop();
    await db.close();
  });

  test('send runs the handler with the data; the job ends completed', async () => {
    const q = queue();
    const seen: unknown[] = [];
    await jobs.work<{ n: number }>(q, async (data) => {
      seen.push(data.n);
    });
    const id = await jobs.send(q, { n: 7 });
    await until(() => seen.length === 1);
    expect(seen).toEqual([7]);
    await until(async () => (await jobs.getJob(q, id))?.state === 'completed');
  });

  test('a batch queue: jobs run side by side, one failure is retried alone, the others complete once', async () => {
    const q = queue({ batchSize: 5, concurrency: 2, retryLimit: 1, retryDelay: 1, retryBackoff: false });
    const runs = new Map<number, number>();
    await jobs.work<{ n: number }>(q, async (data, job) => {
      runs.set(data.n, (runs.get(data.n) ?? 0) + 1);
      expect(job.retryLimit).toBe(1);
      if (data.n === 3 && job.retryCount === 0) throw new Error('first attempt of 3 fails');
    });
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) ids.push(await jobs.send(q, { n }));
    jobs.nudge(q);
    await until(async () => {
      const states = await Promise.all(ids.map(async (id) => (await jobs.getJob(q, id))?.state));
      return states.every((s) => s === 'completed');
    });
    expect([...runs.entries()].sort((a, b) => a[0] - b[0])).toEqual(
      Array.from({ length: 12 }, (_, n) => [n, n === 3 ? 2 : 1]),
    );
  });

  test('sendMany + workBatch: a fetched batch comes whole; a job given an error is retried alone', async () => {
    const q = queue({ batchSize: 10, retryLimit: 1, retryDelay: 1, retryBackoff: false });
    const batches: number[][] = [];
    await jobs.workBatch<{ n: number }>(q, async (batch) => {
      batches.push(batch.map((j) => j.data.n).sort());
      return batch.map((j) => (j.data.n === 2 && j.retryCount === 0 ? new Error('2 fails once') : undefined));
    });
    // Sent together in one transaction (sendMany): the first fetch finds all five.
    await db.system.transaction(async (tx) => {
      await jobs.sendMany(
        q,
        [0, 1, 2, 3, 4].map((n) => ({ n })),
        { tx: tx as any },
      );
    });
    jobs.nudge(q);
    // The retry follows the queue's settings (a second later, not pg-boss's default delay).
    await until(() => batches.length === 2);
    expect(batches).toEqual([[0, 1, 2, 3, 4], [2]]);
    await until(async () => {
      const [{ states }] = await queryRows<{ states: string[] }>(
        db.system,
        sql`select array_agg(distinct state::text) as states from pgboss.job
            where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', q.name)}`,
      );
      return states.length === 1 && states[0] === 'completed';
    });
  });

  test('schedule waits for startAfter; cancel removes a scheduled job', async () => {
    const q = queue();
    const ran: string[] = [];
    await jobs.work<{ k: string }>(q, async (d) => {
      ran.push(d.k);
    });
    const later = await jobs.schedule(q, { k: 'later' }, new Date(Date.now() + 2500));
    const cancelled = await jobs.schedule(q, { k: 'cancelled' }, new Date(Date.now() + 1500));
    await jobs.cancel(q, cancelled);
    await new Promise((r) => setTimeout(r, 1200));
    expect(ran).toEqual([]);
    expect((await jobs.getJob(q, later))?.state).toBe('created');
    await until(() => ran.length === 1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(ran).toEqual(['later']);
    expect((await jobs.getJob(q, cancelled))?.state).toBe('cancelled');
  });

  test('a failing job retries with back-off and ends in the failed state with its error', async () => {
    const q = queue({ retryLimit: 2, retryDelay: 1, retryBackoff: true });
    const attempts: number[] = [];
    await jobs.work(q, async (_d, job) => {
      attempts.push(Date.now());
      throw new Error(`boom ${job.retryCount}`);
    });
    const id = await jobs.send(q, {});
    await until(async () => (await jobs.getJob(q, id))?.state === 'failed', 30_000);
    const job = (await jobs.getJob(q, id))!;
    expect(job.retryCount).toBe(2);
    expect(attempts).toHaveLength(3);
    expect(JSON.stringify(job.output)).toContain('boom');
    // Operators see it (`crm jobs`).
    const report = await jobsReport(db);
    const served = queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', q.name);
    expect(report.counts).toContainEqual({ queue: served, state: 'failed', count: 1 });
    expect(report.failed.find((f) => f.id === id)).toMatchObject({
      queue: served,
      retryCount: 2,
      error: 'boom 2',
    });
    // Back-off: the second wait is longer than the first.
    expect(attempts[2] - attempts[1]).toBeGreaterThan(attempts[1] - attempts[0]);
  });

  test('a job sent inside a transaction exists only if the transaction commits', async () => {
    const q = queue();
    const seen: string[] = [];
    await jobs.work<{ k: string }>(q, async (d) => {
      seen.push(d.k);
    });
    await db.system.transaction(async (tx) => {
      await jobs.send(q, { k: 'committed' }, { tx: tx as any });
    });
    await db.system
      .transaction(async (tx) => {
        await jobs.send(q, { k: 'rolled back' }, { tx: tx as any });
        throw new Error('rollback');
      })
      .catch(() => {});
    await until(() => seen.length === 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(seen).toEqual(['committed']);
  });

  test('every: a periodic job runs on and on, a failed run included, one occurrence waiting at a time', async () => {
    const q = queue();
    let runs = 0;
    const waiting: number[] = [];
    await jobs.every(q, 1, async () => {
      runs++;
      const [{ n }] = await queryRows<{ n: number }>(
        db.system,
        sql`select count(*)::int as n from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', q.name)} and state = 'created'`,
      );
      waiting.push(Number(n));
      if (runs === 2) throw new Error('one failed run does not end the chain');
    });
    // A second instance starting (another process) queues no second occurrence.
    const other = createJobs(db, config);
    await other.every(q, 1, async () => {
      runs++;
    });
    await other.start({ workers: true });
    try {
      await until(() => runs >= 4, 30_000);
      expect(Math.max(...waiting)).toBeLessThanOrEqual(1);
    } finally {
      await other.stop();
    }
  });

  test('every: a run that never ends (its process killed mid-run) does not end the chain: another process goes on', async () => {
    // The fault run of docs/scaling.md: a worker killed during the webhook delivery run took that run's queueNext
    // with it (retry limit 0), and no delivery run happened again until a process started. Each worker re-queues
    // the periodic jobs every PERIODIC_KEEPER_MS (10 s): a waiting occurrence makes that a no-op.
    const q = queue();
    let runs = 0;
    let release: () => void = () => {};
    const killed = new Promise<void>((r) => {
      release = r;
    });
    const handler = async () => {
      runs++;
      if (runs === 2) await killed; // never ends while the test runs: no next occurrence is queued by it
    };
    await jobs.every(q, 1, handler);
    await until(() => runs >= 1);
    const other = createJobs(db, config);
    await other.every(q, 1, handler);
    await other.start({ workers: true });
    try {
      await until(() => runs >= 2);
      await until(() => runs >= 4, 40_000);
    } finally {
      release();
      await other.stop();
    }
  }, 60_000);
});

describe.skipIf(process.env.DATABASE_URL)('jobs survive a restart of the embedded database', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'crm-jobs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('queued, scheduled and interrupted jobs all complete after the process restarts', async () => {
    const q = queue({ name: 'restart-test', expireInSeconds: 2, retryDelay: 1 });
    const done = new Set<number>();
    let open = true;
    const handler = async (d: { n: number }) => {
      await new Promise((r) => setTimeout(r, 150));
      if (!open) throw new Error('shutting down');
      done.add(d.n);
    };

    let db = await openDatabase({ dataDir: dir });
    let jobs = createJobs(db, config);
    await jobs.start({ workers: false });
    for (let n = 0; n < 12; n++) await jobs.send(q, { n });
    await jobs.schedule(q, { n: 99 }, new Date(Date.now() + 4000));
    await jobs.work(q, handler);
    await jobs.stop();
    // Now a worker: take a few, then stop without waiting for the queue to drain.
    jobs = createJobs(db, config);
    await jobs.work(q, handler);
    await jobs.start({ workers: true });
    await until(() => done.size >= 3);
    open = false;
    await jobs.stop({ graceful: false });
    await db.close();
    const before = done.size;
    expect(before).toBeLessThan(13);

    open = true;
    db = await openDatabase({ dataDir: dir });
    jobs = createJobs(db, config);
    await jobs.work(q, handler);
    await jobs.start({ workers: true });
    await until(() => done.size === 13, 40_000);
    expect([...done].sort((a, b) => a - b)).toEqual([...Array(12).keys(), 99]);
    await jobs.stop();
    await db.close();
  });
});
