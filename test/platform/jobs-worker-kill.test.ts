import { type ChildProcess, spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { modules } from '../../src/modules.js';
import { type Database, openDatabase, queryRows } from '../../src/platform/db/client.js';
import { migrateDatabase } from '../../src/platform/db/migrate.js';
import { createJobs, type Jobs, queueNameIn } from '../../src/platform/jobs/jobs.js';
import { enqueueMail } from '../../src/platform/mail/mailer.js';
import { testConfig } from '../helpers/app.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

/**
 * `crm worker` processes on PostgreSQL: one is killed with SIGKILL in the middle of a queue of mail
 * jobs, another starts, and every message still arrives (at least once: the job the dead worker held
 * is expired and retried, so a message can arrive twice, never zero times).
 */
const url = process.env.DATABASE_URL;
const dbUrl = url ? url.replace(/\/[^/?]+(\?|$)/, '/crm_jobs_kill$1') : '';
const TOTAL = 30;

let smtp: TestSmtp;
let db: Database;
let jobs: Jobs;
const children: ChildProcess[] = [];

function startWorker() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: dbUrl,
      SMTP_URL: smtp.url,
      CRM_JOBS_POLL_SECONDS: '0.5',
      CRM_JOBS_MAINTENANCE_SECONDS: '1',
      CRM_JOBS_EXPIRE_SECONDS: '3',
      CRM_LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (d) => process.stderr.write(`[worker ${child.pid}] ${d}`));
  children.push(child);
  return child;
}

beforeAll(async () => {
  if (!url) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('drop database if exists crm_jobs_kill with (force)');
  await admin.query('create database crm_jobs_kill');
  await admin.end();
  smtp = await startSmtp({ delayMs: 150 });
  db = await openDatabase({ databaseUrl: dbUrl, dataDir: 'memory://', poolSize: 2 });
  await migrateDatabase(db, modules);
  jobs = createJobs(db, testConfig({ CRM_JOBS_EXPIRE_SECONDS: 3 }));
  await jobs.start({ workers: false });
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await jobs?.stop();
  await db?.close();
  await smtp?.close();
});

test.skipIf(!url)(
  'a worker killed mid-queue loses no job: a restarted worker delivers the rest',
  async () => {
    const ids = [];
    for (let i = 0; i < TOTAL; i++) {
      const messageId = `<kill-${i}@crm.test>`;
      ids.push(messageId);
      await enqueueMail(jobs, { to: `r${i}@example.test`, subject: `Message ${i}`, text: 'x', messageId });
    }
    const distinct = () => new Set(smtp.received.map((m) => m.messageId)).size;

    const first = startWorker();
    await smtp.waitFor(() => distinct() >= 5, 60_000);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = distinct();
    expect(atKill).toBeLessThan(TOTAL);

    startWorker();
    await smtp.waitFor(() => distinct() === TOTAL, 90_000);
    expect(new Set(smtp.received.map((m) => m.messageId))).toEqual(new Set(ids));
    // Every job ends completed: none left active, queued or failed. The job the dead worker held is
    // expired (3 s here) and retried after the mail queue's retry delay (30 s), so this can take a while.
    const until = Date.now() + 75_000;
    let states: { state: string; n: number }[] = [];
    while (Date.now() < until) {
      states = await queryRows(
        db.system,
        sql`select state::text as state, count(*)::int as n from pgboss.job where name = ${queueNameIn(process.env.CRM_JOBS_NAMESPACE ?? '', 'mail-send')} group by state`,
      );
      if (states.length === 1 && states[0].state === 'completed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(states).toEqual([{ state: 'completed', n: TOTAL }]);
  },
  240_000,
);
