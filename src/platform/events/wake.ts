import type pg from 'pg';
import type { Database } from '../db/client.js';

/**
 * Event delivery woken on commit: a NOTIFY on each transaction that recorded events, one LISTEN per worker process,
 * and Pumps that run their work once at a time; the periodic jobs stay as the safety net. The design:
 * docs/decisions.md "Event delivery woken on commit".
 */

export const EVENTS_CHANNEL = 'crm_events';

export const EVENTS_NOTIFY_SQL = [
  `CREATE OR REPLACE FUNCTION crm_events_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- The writer's CRM_JOBS_NAMESPACE (empty in deployments): listeners of another namespace ignore it.
  PERFORM pg_notify('${EVENTS_CHANNEL}', coalesce(current_setting('crm.jobs_namespace', true), ''));
  RETURN NULL;
END $fn$`,
  `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'domain_events_notify' AND tgrelid = 'domain_events'::regclass) THEN
    CREATE TRIGGER domain_events_notify AFTER INSERT ON domain_events
      FOR EACH STATEMENT EXECUTE FUNCTION crm_events_notify();
  END IF;
END $$`,
];

/** Runs `work` (which answers how much it did) until a pass does nothing, once at a time; kicks meanwhile fold. */
export class Pump {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly name: string,
    private readonly work: () => Promise<number>,
    /** A pass after which nothing is left ends the run; a busy run yields after this long (the periodic job resumes). */
    private readonly budgetMs = 5_000,
  ) {}

  /** Runs now, or once more after the current run; resolves when that run ends. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no run is in progress (a stopping process waits for the run a kick started). */
  async drain() {
    while (this.running) await this.running.catch(() => {});
  }

  /** Like run, without waiting (errors are logged). */
  kick() {
    this.run().catch((err) => console.error(`${this.name}: ${(err as Error).message}`));
  }

  private async loop() {
    const until = Date.now() + this.budgetMs;
    for (;;) {
      this.again = false;
      const done = await this.work();
      if ((done === 0 && !this.again) || Date.now() >= until) return;
    }
  }
}

/** In-process signal: the dispatcher fanned events out (consumers' runners subscribe their pump's kick). */
const dispatchedListeners = new Set<() => void>();
export function onEventsDispatched(fn: () => void) {
  dispatchedListeners.add(fn);
  return () => dispatchedListeners.delete(fn);
}
export function eventsDispatched() {
  for (const fn of dispatchedListeners) fn();
}

/**
 * LISTENs on EVENTS_CHANNEL and calls `onCommit` for each notification; answers the function that stops.
 * A lost connection (PostgreSQL) is replaced after a second; meanwhile the periodic dispatch covers.
 */
export async function listenForEvents(db: Database, onCommit: () => void): Promise<() => Promise<void>> {
  if (db.pglite) return db.pglite.listen(EVENTS_CHANNEL, () => onCommit());
  // A session of its own (DATABASE_DIRECT_URL behind a transaction pooler).
  const pool = (db.sessionPool ?? db.pool) as pg.Pool;
  let closed = false;
  let release: ((err?: Error) => void) | undefined;
  const connect = async (): Promise<void> => {
    const client = await pool.connect();
    let released = false;
    release = (err?: Error) => {
      if (released) return;
      released = true;
      client.removeAllListeners('notification');
      client.release(err ?? true);
    };
    const own = release;
    client.on('notification', (m) => {
      if (m.channel === EVENTS_CHANNEL && (m.payload ?? '') === (db.namespace ?? '')) onCommit();
    });
    client.on('error', (err) => {
      // A connection can report more than one error; the first replaces it, the rest (and any after a release) are moot.
      if (released) return;
      console.error(`events: listening connection lost: ${err.message}`);
      own(err);
      if (!closed) setTimeout(() => void connect().catch(() => {}), 1000).unref();
    });
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    // Events committed while nobody listened (start, reconnect): one pass picks them up.
    onCommit();
  };
  await connect();
  return async () => {
    closed = true;
    release?.();
  };
}
