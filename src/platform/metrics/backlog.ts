import { sql } from 'drizzle-orm';
import { Counter, Gauge, type Registry } from 'prom-client';
import { type Database, queryRows } from '../db/client.js';
import { ownOrganizations } from '../db/namespace.js';

/** How long one reading of the job and outbox tables answers scrapes: several Prometheus servers cost one. */
export const BACKLOG_CACHE_MS = 5_000;

interface QueueRow {
  name: string;
  waiting: number;
  scheduled: number;
  active: number;
  failed: number;
}

interface Backlog {
  queues: QueueRow[];
  outbox: { pending: number; oldest_age: number };
}

/**
 * The work waiting in the database, read when scraped (cached BACKLOG_CACHE_MS): jobs per pg-boss queue of this
 * process's namespace and state, and the events outbox's undispatched rows. A failed reading (the database down,
 * pg-boss's schema not made yet) leaves these series out of that scrape and counts an error; the scrape answers.
 */
export function collectBacklog(db: Database, registry: Registry, namespace: string) {
  const registers = [registry];
  const errors = new Counter({
    name: 'crm_metrics_collect_errors_total',
    help: 'Scrapes whose reading of the job queues and the events outbox failed (those series left out)',
    registers,
  });
  let cached: { at: number; reading: Promise<Backlog | null> } | undefined;
  const read = () => {
    const now = performance.now();
    if (!cached || now - cached.at > BACKLOG_CACHE_MS)
      cached = {
        at: now,
        reading: readBacklog(db, namespace).catch(() => {
          errors.inc();
          cached = undefined;
          return null;
        }),
      };
    return cached.reading;
  };
  const prefix = namespace ? `${namespace}__` : '';
  new Gauge({
    name: 'crm_job_queue_jobs',
    help: 'Jobs per queue by state: waiting (due), scheduled (due later), active, failed (kept until pg-boss archives them)',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      const backlog = await read();
      for (const q of backlog?.queues ?? []) {
        const queue = q.name.slice(prefix.length);
        for (const state of ['waiting', 'scheduled', 'active', 'failed'] as const)
          this.set({ queue, state }, q[state]);
      }
    },
  });
  new Gauge({
    name: 'crm_events_outbox_pending',
    help: 'Domain events recorded and not yet dispatched to their consumers (webhooks, automations, conversions)',
    registers,
    async collect() {
      this.reset();
      const backlog = await read();
      if (backlog) this.set(backlog.outbox.pending);
    },
  });
  new Gauge({
    name: 'crm_events_outbox_oldest_age_seconds',
    help: 'Age of the oldest undispatched domain event (0 when none waits)',
    registers,
    async collect() {
      this.reset();
      const backlog = await read();
      if (backlog) this.set(backlog.outbox.oldest_age);
    },
  });
}

async function readBacklog(db: Database, namespace: string): Promise<Backlog> {
  const prefix = namespace ? `${namespace}__` : '';
  // pg-boss keeps a partition per queue; the states compared in its enum's order (created, retry < active).
  const queues = await queryRows<QueueRow>(
    db.system,
    sql`select q.name,
          count(j.id) filter (where j.state < 'active' and j.start_after <= now())::int as waiting,
          count(j.id) filter (where j.state < 'active' and j.start_after > now())::int as scheduled,
          count(j.id) filter (where j.state = 'active')::int as active,
          count(j.id) filter (where j.state = 'failed')::int as failed
        from pgboss.queue q
        left join pgboss.job j on j.name = q.name and (j.state <= 'active' or j.state = 'failed')
        where left(q.name, ${prefix.length}) = ${prefix}
        group by q.name order by q.name`,
  );
  const [outbox] = await queryRows<Backlog['outbox']>(
    db.system,
    sql`select count(*)::int as pending,
          coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_age
        from domain_events_pending p join domain_events e on e.organization_id = p.organization_id and e.id = p.id
        where true ${ownOrganizations(db, sql`p.organization_id`)}`,
  );
  return { queues, outbox };
}
