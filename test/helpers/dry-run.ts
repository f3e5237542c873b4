import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { queryRows } from '../../src/platform/db/client.js';
import { getApp, type Res, type Tenant } from './app.js';

/** Delta tables the maintenance folds (and tombstones it removes) while a test runs: not writes of the request. */
const FOLDED = new Set([
  'card_count_deltas',
  'card_counts',
  'card_report_deltas',
  'card_report_rollups',
  'card_report_tombstones',
  // The outbox's pending rows: the events dispatcher, woken by an earlier real call, deletes them at any time (not a
  // write of the request under test; an event a dry run wrote would show in domain_events).
  'domain_events_pending',
]);

/**
 * Everything a write could leave behind for one organization: a digest of every row of every table that has an
 * organization_id (records, history, domain events, audit entries, outbox rows…), the organization's pg-boss
 * jobs (reminders, mail, dispatch) and the user's idempotency keys. Equal snapshots: nothing was written.
 */
export async function snapshot(t: Tenant, mailTo: string[] = []): Promise<Record<string, string>> {
  const { db } = await getApp();
  const [org] = await queryRows<{ id: number }>(
    db.system,
    sql`select id from organizations where slug = ${t.slug}`,
  );
  const tables = await queryRows<{ table_name: string }>(
    db.system,
    sql`select table_name from information_schema.columns
        where table_schema = 'public' and column_name = 'organization_id' order by table_name`,
  );
  const out: Record<string, string> = {};
  for (const { table_name } of tables) {
    // Deltas the maintenance folds into their totals at any time: compared as the sums they stand for (below).
    if (FOLDED.has(table_name)) continue;
    const [row] = await queryRows<{ n: number; digest: string | null }>(
      db.system,
      sql`select count(*)::int as n,
            md5(string_agg(to_jsonb(t)::text, '|' order by to_jsonb(t)::text)) as digest
          from ${sql.identifier(table_name)} t where organization_id = ${org.id}`,
    );
    out[table_name] = `${row.n}:${row.digest ?? ''}`;
  }
  const [jobs] = await queryRows<{ n: number; digest: string | null }>(
    db.system,
    sql`select count(*)::int as n, md5(string_agg(id::text || state, '|' order by id)) as digest
        from pgboss.job where data->>'orgId' = ${String(org.id)}
          or data->>'to' in (${sql.join(
            [t.user.email, ...mailTo].map((e) => sql`${e}`),
            sql`, `,
          )})`,
  );
  for (const [name, statement] of [
    [
      'card_counts (with deltas)',
      sql`select board_id, phase_id, due_day, sum(card_count) as n, sum(value_sum) as v from (
            select board_id, phase_id, due_day, card_count, value_sum from card_counts where organization_id = ${org.id}
            union all
            select board_id, phase_id, due_day, card_count, value_sum from card_count_deltas where organization_id = ${org.id}
          ) x group by 1, 2, 3 having sum(card_count) <> 0 or sum(value_sum) <> 0`,
    ],
    [
      'card_report_rollups (with deltas)',
      sql`select board_id, kind, key, day, sum(card_count) as n, sum(value_sum) as v from (
            select board_id, kind, key, day, card_count, value_sum from card_report_rollups where organization_id = ${org.id}
            union all
            select board_id, kind, key, day, card_count, value_sum from card_report_deltas where organization_id = ${org.id}
          ) x group by 1, 2, 3, 4 having sum(card_count) <> 0 or sum(value_sum) <> 0`,
    ],
  ] as const) {
    const [row] = await queryRows<{ n: number; digest: string | null }>(
      db.system,
      sql`select count(*)::int as n, md5(string_agg(to_jsonb(t)::text, '|' order by to_jsonb(t)::text)) as digest
          from (${statement}) t`,
    );
    out[name] = `${row.n}:${row.digest ?? ''}`;
  }
  out['pgboss.job'] = `${jobs.n}:${jobs.digest ?? ''}`;
  const [keys] = await queryRows<{ n: number }>(
    db.system,
    sql`select count(*)::int as n from idempotency_keys where user_id = ${t.user.id}`,
  );
  out.idempotency_keys = String(keys.n);
  return out;
}

/** A successful dry run: 200, the header, meta.dryRun. */
export function expectDryRun(res: Res) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers['dry-run']).toBe('true');
  expect(res.headers.location).toBeUndefined();
  expect(res.body.meta?.dryRun).toBe(true);
}

/** The body without the dry run's marker, to compare with a real answer. */
export function withoutDryRun(body: any) {
  const { meta, ...rest } = body;
  const { dryRun: _d, ...otherMeta } = meta ?? {};
  return Object.keys(otherMeta).length ? { ...rest, meta: otherMeta } : rest;
}

/**
 * Runs `call` as a dry run, checks the database is unchanged, then runs it for real: the dry run must answer the
 * same 4xx (same error) as the real call. Returns both answers.
 */
export async function sameFailure(t: Tenant, call: (query: string) => Promise<Res>, mailTo: string[] = []) {
  const before = await snapshot(t, mailTo);
  const dry = await call('?dryRun=true');
  expect(await snapshot(t, mailTo)).toEqual(before);
  const real = await call('');
  expect(real.status, JSON.stringify(real.body)).toBeGreaterThanOrEqual(400);
  expect(real.status).toBeLessThan(500);
  expect(dry.status, JSON.stringify(dry.body)).toBe(real.status);
  expect(dry.body.error).toEqual(real.body.error);
  expect(dry.headers['dry-run']).toBe('true');
  return { dry, real };
}

/** Runs `call` as a dry run (expected to succeed) and checks that nothing was written. */
export async function dryRunChangesNothing(
  t: Tenant,
  call: (query: string) => Promise<Res>,
  mailTo: string[] = [],
) {
  const before = await snapshot(t, mailTo);
  const dry = await call('?dryRun=true');
  expectDryRun(dry);
  expect(await snapshot(t, mailTo)).toEqual(before);
  return dry;
}
