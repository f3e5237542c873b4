import type pg from 'pg';

/** What pgTenantTransaction needs of node-pg's client beyond its public API (pg 8.23). */
interface PipelinableClient {
  /** node-pg's pipeline mode: queries are written as they are issued, answered in order. */
  pipeline: boolean;
  connection: { stream: { cork(): void; uncork(): void } };
}

export interface FirstQueryBegin {
  /** The client to give drizzle's session: its first query carries `begin` and the tenant settings. */
  client: pg.PoolClient;
  /** Whether the transaction was opened (a `fn` that ran no statement never opens one). */
  readonly begun: boolean;
  /** The error of `begin` + settings, if they failed (the statements after them then fail as aborted). */
  readonly beginError: unknown;
  /** Back to node-pg's one-query-at-a-time mode: before the client goes back to the pool. */
  done(): void;
}

/**
 * Opens a tenant transaction lazily, in the same socket write as its first statement: `begin` and the tenant
 * settings (one simple-query message) and that statement leave together, in node-pg's pipeline mode (each is
 * answered in order, each with its own Sync), instead of waiting a round trip for `begin`'s answer. A round
 * trip costs the service about a tenth of a read request's CPU (docs/performance.md, sixth pass).
 *
 * The guarantee is the server's: it runs the messages in order on the one connection, so the statement runs
 * after the settings; if the settings fail, the transaction is aborted and the statement fails too (never runs
 * without them). Without pipeline mode (an older pg) the statement simply waits for `begin`, as before.
 */
export function firstQueryBegin(client: pg.PoolClient, begin: string): FirstQueryBegin {
  const raw = client as unknown as PipelinableClient;
  let begun = false;
  let beginError: unknown;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const wrapped = {
    query(...args: unknown[]) {
      if (begun) return query(...args);
      begun = true;
      raw.pipeline = true;
      const stream = raw.connection.stream;
      stream.cork();
      try {
        (query(begin) as Promise<unknown>).catch((err: unknown) => {
          beginError = err;
        });
        return query(...args);
      } finally {
        stream.uncork();
      }
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
    done() {
      raw.pipeline = false;
    },
  };
}
