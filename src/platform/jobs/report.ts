import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '../db/client.js';

export interface JobsReport {
  counts: { queue: string; state: string; count: number }[];
  failed: { id: string; queue: string; retryCount: number; failedAt: string; error: string }[];
}

/** What an operator needs to see: jobs per queue and state, and the latest failures with their error. */
export async function jobsReport(db: Database, limit = 20): Promise<JobsReport> {
  const counts = await queryRows<{ queue: string; state: string; count: number }>(
    db.system,
    sql`select name as queue, state::text as state, count(*)::int as count from pgboss.job
        group by name, state order by name, state`,
  );
  const failed = await queryRows<{
    id: string;
    queue: string;
    retry_count: number;
    failed_at: Date;
    output: unknown;
  }>(
    db.system,
    sql`select id::text, name as queue, retry_count, completed_on as failed_at, output from (
          select id, name, retry_count, completed_on, output, state from pgboss.job
          union all select id, name, retry_count, completed_on, output, state from pgboss.archive
        ) j where state = 'failed' order by completed_on desc limit ${limit}`,
  );
  return {
    counts,
    failed: failed.map((f) => ({
      id: f.id,
      queue: f.queue,
      retryCount: f.retry_count,
      failedAt: new Date(f.failed_at).toISOString(),
      error:
        typeof f.output === 'object' && f.output && 'message' in f.output
          ? String(f.output.message)
          : JSON.stringify(f.output),
    })),
  };
}
