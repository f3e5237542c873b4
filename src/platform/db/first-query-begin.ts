import type pg from 'pg';

/** What pgTenantTransaction needs of node-pg's client beyond its public API (pg 8.23). */
interface PipelinableClient {
  /** node-pg's pipeline mode: queries are written as they are issued, answered in order. */
  pipeline: boolean;
  connection: { stream: { cork(): void; uncork(): void } };
}

/** A statement queued by `defer`: node-pg's query config. */
export interface DeferredStatement {
  name?: string;
  text: string;
  values: unknown[];
}

export interface FirstQueryBegin {
  /** The client to give drizzle's session: its first query carries `begin` and the tenant settings. */
  client: pg.PoolClient;
  /** Whether the transaction was opened (a `fn` that ran no statement never opens one). */
  readonly begun: boolean;
  /** The error of `begin` + settings, if they failed (the statements after them then fail as aborted). */
  readonly beginError: unknown;
  /** The first error of a deferred statement (the transaction is then aborted: its commit answers ROLLBACK). */
  readonly deferredError: unknown;
  /**
   * Queues a statement whose answer nobody waits for (an outbox row): it leaves in the same socket write as the
   * transaction's next statement, or its commit, and runs before it.
   */
  defer(statement: DeferredStatement): void;
  /**
   * Sends `commit` right behind the next statement, in its socket write (work whose last statement is known):
   * one round trip fewer. Any statement or deferred write after that one is refused (the transaction is over).
   */
  commitWithNext(): void;
  /**
   * Ends the transaction, once: `commit` sends what is still queued and the commit (or answers the commit
   * commitWithNext sent); `rollback` drops the queue and rolls back what was begun (or waits for the commit
   * already sent, whose answer it leaves to the caller). Undefined when there is nothing to send or wait for.
   * Every statement after it is refused.
   */
  end(how: 'commit' | 'rollback'): Promise<unknown> | undefined;
  /** Back to node-pg's one-query-at-a-time mode: before the client goes back to the pool. */
  done(): void;
}

const noop = () => undefined;

/**
 * A tenant transaction's client in node-pg's pipeline mode (queries written as issued, answered in order, each
 * with its own Sync), so that statements leave together in one socket write instead of one round trip each:
 *
 * - the transaction opens lazily, with its first statement: `begin` and the tenant settings (one simple-query
 *   message) leave in the same write as that statement;
 * - statements issued in the same turn of the event loop (`Promise.all` of a page and its total) share one write:
 *   the socket is corked until the turn's queued jobs have run;
 * - a deferred statement (`defer`: a write nobody reads the answer of) leaves with the next statement or the commit;
 * - a read that knows its last statement sends `commit` behind it (`commitWithNext`).
 *
 * A round trip saved is mostly the database's work per message and the request's latency (docs/performance.md,
 * eighth pass: the service's own CPU moves little). The guarantee is the server's: it runs the messages in order
 * on the one connection, so a statement runs after the settings and the deferred writes before it; if one of those
 * fails, the transaction is aborted and the statements behind it fail too (never run without them), and the helper
 * reports the first error. Without pipeline mode (an older pg) each statement simply waits for the one before, as
 * node-pg queues them.
 */
export function firstQueryBegin(client: pg.PoolClient, begin: string): FirstQueryBegin {
  const raw = client as unknown as PipelinableClient;
  let begun = false;
  let beginError: unknown;
  let deferredError: unknown;
  let corked = false;
  const queue: DeferredStatement[] = [];
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const stream = () => raw.connection.stream;
  // Corked until the current turn's microtasks and ticks have run: a nextTick queued from a promise job runs after
  // the microtask queue drains, so every query issued by the jobs of this turn is in the one write.
  const corkForTurn = () => {
    if (corked) return;
    corked = true;
    const s = stream();
    s.cork();
    process.nextTick(() => {
      corked = false;
      s.uncork();
    });
  };
  let commitNext = false;
  let committing: Promise<unknown> | undefined;
  /** Why statements are refused now: the transaction's commit or rollback was sent. */
  let over: string | undefined;
  const refuse = (what: string) => {
    throw new Error(`tenant transaction: ${what} after ${over}`);
  };
  /** Sends `begin` (first time), then the queued writes: in this turn's write, before what follows. */
  const flush = () => {
    corkForTurn();
    if (!begun) {
      begun = true;
      raw.pipeline = true;
      (query(begin) as Promise<unknown>).catch((err: unknown) => {
        beginError = err;
      });
    }
    for (const statement of queue.splice(0))
      (query(statement) as Promise<unknown>).catch((err: unknown) => {
        deferredError ??= err;
      });
  };
  const wrapped = {
    query(...args: unknown[]) {
      if (over) refuse('a statement');
      flush();
      const result = query(...args);
      if (commitNext) {
        over = 'the statement its commit was sent with (commitWithNext)';
        committing = query('commit') as Promise<unknown>;
        // Awaited by end(); a failure of the statement before it shows there too.
        committing.catch(() => {});
      }
      return result;
    },
  };
  return {
    client: wrapped as unknown as pg.PoolClient,
    get begun() {
      return begun;
    },
    get beginError() {
      return beginError;
    },
    get deferredError() {
      return deferredError;
    },
    defer(statement) {
      if (over) refuse('a deferred write');
      queue.push(statement);
    },
    commitWithNext() {
      commitNext = true;
    },
    end(how) {
      commitNext = false;
      // The commit's own failure is the caller's to report on `commit`; on `rollback` it only has to have ended.
      if (committing) return how === 'commit' ? committing : committing.then(noop, noop);
      if (over) return undefined;
      over = `its ${how}`;
      if (how === 'rollback') {
        queue.length = 0;
        return begun ? (query('rollback') as Promise<unknown>) : undefined;
      }
      if (!begun && queue.length === 0) return undefined;
      flush();
      return query('commit') as Promise<unknown>;
    },
    done() {
      queue.length = 0;
      raw.pipeline = false;
    },
  };
}
