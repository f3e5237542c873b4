import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database, TransactionObserver } from '../db/client.js';
import type { LaggingReadObserver } from '../db/replica.js';
import { collectBacklog } from './backlog.js';

export type WebhookDeliveryOutcome = 'delivered' | 'retry' | 'failed';
export type AutomationRunOutcome = 'succeeded' | 'failed' | 'skipped' | 'retry';
export type CampaignSendOutcome = 'sent' | 'failed' | 'retry' | 'skipped';

/**
 * What the modules count, each where the outcome is decided (after it is recorded): the one metrics interface
 * they get from their deps. No prom-client type crosses it. docs/metrics.md lists what each becomes.
 */
export interface Metrics {
  /** Delivery attempts of outbound webhooks: delivered, failed and retried later, or failed for good. */
  webhookDeliveries(outcome: WebhookDeliveryOutcome, n?: number): void;
  automationRuns(outcome: AutomationRunOutcome, n?: number): void;
  /** Messages of campaigns, by channel type (email, whatsapp, sms). */
  campaignSends(channel: string, outcome: CampaignSendOutcome, n?: number): void;
  /** A Server-Sent Events stream opened: call the answer once when it closes. */
  streamOpened(): () => void;
}

/** The process's metrics: one registry per process (per app in tests, several of which share a process). */
export interface ProcessMetrics extends Metrics {
  registry: Registry;
  /** Detaches from the database (its transaction observer); the registry stays readable. */
  close(): void;
}

const TX_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `namespace`: CRM_JOBS_NAMESPACE, whose job queues are this process's. */
export function createMetrics(db: Database, namespace: string): ProcessMetrics {
  const registry = new Registry();
  const registers = [registry];
  // Event-loop lag, heap, GC, CPU, file descriptors: prom-client's standard process metrics.
  collectDefaultMetrics({ register: registry });

  const webhooks = new Counter({
    name: 'crm_webhook_deliveries_total',
    help: 'Outbound webhook delivery attempts by outcome (delivered; retry: failed, tried again later; failed: gave up)',
    labelNames: ['outcome'],
    registers,
  });
  const automations = new Counter({
    name: 'crm_automation_runs_total',
    help: 'Automation runs by outcome (succeeded, failed, skipped; retry: an action failed transiently, run again later)',
    labelNames: ['outcome'],
    registers,
  });
  const campaigns = new Counter({
    name: 'crm_campaign_sends_total',
    help: 'Campaign messages by channel type and outcome (sent, failed, skipped; retry: sent again later)',
    labelNames: ['channel', 'outcome'],
    registers,
  });
  let streams = 0;
  new Gauge({
    name: 'crm_sse_connections',
    help: 'Open Server-Sent Events streams (inbox live updates)',
    registers,
    collect() {
      this.set(streams);
    },
  });

  const detachDatabase = observeDatabase(db, registers);
  collectBacklog(db, registry, namespace);

  return {
    registry,
    webhookDeliveries: (outcome, n = 1) => webhooks.inc({ outcome }, n),
    automationRuns: (outcome, n = 1) => automations.inc({ outcome }, n),
    campaignSends: (channel, outcome, n = 1) => campaigns.inc({ channel, outcome }, n),
    streamOpened() {
      streams++;
      let open = true;
      return () => {
        if (open) streams--;
        open = false;
      };
    },
    close() {
      detachDatabase();
    },
  };
}

/** The database's side: tenant transactions, the pool, the read replica. Answers what detaches it (`close`). */
function observeDatabase(db: Database, registers: Registry[]): () => void {
  const transactions = new Histogram({
    name: 'crm_db_tenant_transaction_duration_seconds',
    help: 'Duration of tenant transactions (one per tenant request, more in jobs), by whether they committed',
    labelNames: ['outcome'],
    buckets: TX_BUCKETS,
    registers,
  });
  const committed = transactions.labels('commit');
  const rolledBack = transactions.labels('rollback');
  const observer: TransactionObserver = (seconds, ok) => (ok ? committed : rolledBack).observe(seconds);
  db.transactionObservers.add(observer);

  const pool = db.pool;
  new Gauge({
    name: 'crm_db_pool_max_connections',
    help: 'Connections the database pool may open (DATABASE_POOL_SIZE; the embedded database has one)',
    registers,
    collect() {
      this.set(pool ? pool.options.max : 1);
    },
  });
  // The embedded database has no pool: its one connection takes statements in turn, and no count of the
  // statements waiting for it is exposed, so these two are PostgreSQL's only.
  if (pool) {
    new Gauge({
      name: 'crm_db_pool_connections',
      help: 'Open connections of the PostgreSQL pool by state (in_use, idle)',
      labelNames: ['state'],
      registers,
      collect() {
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
      },
    });
    new Gauge({
      name: 'crm_db_pool_waiting',
      help: 'Callers waiting for a connection of the PostgreSQL pool',
      registers,
      collect() {
        this.set(pool.waitingCount);
      },
    });
  }
  const detachReplica = observeReplicaReads(db.replicaReads, registers);
  return () => {
    db.transactionObservers.delete(observer);
    detachReplica();
  };
}

/**
 * The read replica (DATABASE_REPLICA_URL, db/replica.ts): where the reads that may lag went, and its lag.
 * Answers what detaches it.
 */
function observeReplicaReads(replicaReads: Database['replicaReads'], registers: Registry[]): () => void {
  if (!replicaReads) return () => {};
  const lagging = new Counter({
    name: 'crm_db_lagging_reads_total',
    help: 'Reads that may lag (report, statistics, exports) by where they ran (replica, primary) and why (caught_up, own_write, behind, down, error)',
    labelNames: ['target', 'reason'],
    registers,
  });
  const laggingObserver: LaggingReadObserver = (target, reason) => lagging.inc({ target, reason });
  replicaReads.observers.add(laggingObserver);
  new Gauge({
    name: 'crm_db_replica_lag_seconds',
    help: 'Replay lag of the read replica at its last measurement (-1: down or not measured yet)',
    registers,
    collect() {
      const s = replicaReads.last;
      this.set(s?.up && Number.isFinite(s.lagMs) ? s.lagMs / 1000 : -1);
    },
  });
  return () => {
    replicaReads.observers.delete(laggingObserver);
  };
}
