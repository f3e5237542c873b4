import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '../../platform/db/client.js';
import { RETENTION_DEFAULTS, RETENTION_KINDS, type RetentionKind } from '../organizations/index.js';

/**
 * The retention rules (docs/lgpd.md, "Retention"): per kind, the rows older than the organization's setting
 * (its override, else the default; null keeps them) are deleted in batches of RETENTION_BATCH rows, each batch
 * a statement of its own (its own short transaction), at most RETENTION_MAX_BATCHES per kind and run: a large
 * backlog is worked off over several runs instead of in one long transaction.
 */
export const RETENTION_BATCH = 1000;
export const RETENTION_MAX_BATCHES = 100;

interface Rule {
  table: string;
  /** The rows the rule may delete, given the cutoff expression; `t` is the table, `o` the organization. */
  where(cutoff: string): string;
  /** Extra join (e.g. the campaign of a recipient row). */
  join?: string;
}

const RULES: Record<RetentionKind, Rule> = {
  messages: { table: 'chat_messages', where: (c) => `t.created_at < ${c}` },
  timelines: { table: 'contact_activities', where: (c) => `t.created_at < ${c}` },
  domainEvents: {
    table: 'domain_events',
    where: (c) =>
      `t.created_at < ${c} and not exists (select 1 from domain_events_pending p
         where p.organization_id = t.organization_id and p.id = t.id)`,
  },
  webhookDeliveries: {
    table: 'webhook_deliveries',
    where: (c) => `t.status <> 'pending' and t.created_at < ${c}`,
  },
  automationRuns: { table: 'automation_runs', where: (c) => `t.status <> 'pending' and t.created_at < ${c}` },
  campaignRecipients: {
    table: 'campaign_recipients',
    join: 'join campaigns c on c.organization_id = t.organization_id and c.id = t.campaign_id',
    where: (cutoff) => `c.status in ('completed', 'failed', 'cancelled') and c.completed_at < ${cutoff}`,
  },
};

/** One batch of one kind, over every organization: the rows deleted. */
export async function retentionBatch(ex: Executor, kind: RetentionKind, batch = RETENTION_BATCH) {
  const rule = RULES[kind];
  const days = `(case when o.retention ? '${kind}' then (o.retention->>'${kind}')::int else ${RETENTION_DEFAULTS[kind]} end)`;
  const cutoff = `now() - make_interval(days => ${days})`;
  const [row] = await queryRows<{ n: number }>(
    ex,
    sql.raw(`with doomed as (
        select t.organization_id, t.id from ${rule.table} t
        join organizations o on o.id = t.organization_id ${rule.join ?? ''}
        where ${rule.where(cutoff)}
        limit ${batch}
      ), gone as (
        delete from ${rule.table} d using doomed
        where d.organization_id = doomed.organization_id and d.id = doomed.id
        returning 1
      ) select count(*)::int as n from gone`),
  );
  return row?.n ?? 0;
}

/** One run of every rule: the rows deleted per kind. */
export async function enforceRetention(ex: Executor, batch = RETENTION_BATCH) {
  const deleted = {} as Record<RetentionKind, number>;
  for (const kind of RETENTION_KINDS) {
    deleted[kind] = 0;
    for (let i = 0; i < RETENTION_MAX_BATCHES; i++) {
      const n = await retentionBatch(ex, kind, batch);
      deleted[kind] += n;
      if (n < batch) break;
    }
  }
  return deleted;
}
