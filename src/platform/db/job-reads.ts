import type { Database, Tx } from './client.js';

/**
 * A job's reads that may lag (the exports: docs/postgresql.md#a-read-replica). The answer is `db` with its tenant
 * transactions routed: on the streaming standby (DATABASE_REPLICA_URL, read only, RLS as on the primary) while it
 * is up, within CRM_REPLICA_MAX_LAG_MS and has replayed the primary's WAL position of this call (the job's start:
 * everything committed before it, the request that queued it and an erasure that ran before it included; the call
 * waits up to a second for that replay, usually milliseconds away); else,
 * and when a read fails there, on the primary. Each tenant transaction is routed on its own (a page of an export).
 *
 * For reads only: a write through it would fail on the standby. The job's writes (its status, its counts) and
 * every check that decides something (a request's state, an erasure, a link) go through `db` itself.
 */
/** How long a job waits at its start for the standby to replay what came before it (then the primary answers). */
const JOB_REPLAY_WAIT_MS = 1000;

export async function jobReads(db: Database): Promise<Database> {
  const reads = db.replicaReads;
  if (!reads) return db;
  const start = await reads.position();
  await reads.awaitReplay(start, JOB_REPLAY_WAIT_MS);
  const tenantTransaction = async <T>(orgId: number, fn: (tx: Tx) => Promise<T>): Promise<T> => {
    const route = await reads.routeAt(start);
    if (route.target === 'replica') {
      try {
        const result = await reads.transaction(orgId, fn);
        reads.observe('replica', route.reason);
        return result;
      } catch (err) {
        reads.fault(err);
        reads.observe('primary', 'error');
      }
    } else reads.observe('primary', route.reason);
    return db.tenantTransaction(orgId, fn);
  };
  return { ...db, tenantTransaction };
}
