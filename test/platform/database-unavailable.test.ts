import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, test } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/http/errors.js';

/**
 * A request the database could not take (the pooler restarting, a failover, the server shutting down) answers 503
 * with Retry-After, not 500 (found by scripts/cluster/faults.ts: a PgBouncer restart gave 500s). Errors as node-pg
 * raises them; an outbound call's socket error (fetch wraps it in `cause`) is not the database's.
 */
const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:6432`), { code });

describe('database unavailable', () => {
  test('connection exceptions, shutdowns, too many connections and lost sockets are recognised', () => {
    for (const err of [
      pgError('08006'),
      pgError('08P01', 'server login has been failing'),
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('57P03', 'the database system is starting up'),
      pgError('53300', 'too many connections'),
      socketError('ECONNREFUSED'),
      socketError('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      // A query through drizzle while the pooler is down (the fault run of 28 November: 95 answers of 500).
      new DrizzleQueryError('select 1', [], socketError('ECONNREFUSED')),
      new DrizzleQueryError('select 1', [], new Error('Connection terminated unexpectedly')),
    ])
      expect(isDatabaseUnavailable(err), err.message).toBe(true);
  });

  test('other errors are not', () => {
    for (const err of [
      pgError('23505', 'duplicate key'),
      pgError('40P01', 'deadlock detected'),
      new TypeError('fetch failed', { cause: socketError('ECONNREFUSED') }),
      new DrizzleQueryError('select 1', [], pgError('23505', 'duplicate key')),
      new Error('something else'),
    ])
      expect(isDatabaseUnavailable(err), err.message).toBe(false);
  });
});
