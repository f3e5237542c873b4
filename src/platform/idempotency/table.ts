import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * Stored first responses of POSTs carrying `Idempotency-Key`, keyed per user, kept 24 h. While the first
 * request runs, the row is leased to it (`lease_token`, `locked_until`, renewed by its process); a request
 * whose write committed marks the row in the same transaction (`committed`, `provisional_body`), so a
 * process that dies before answering leaves a key a retry can replay (docs: plugin.ts).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: bigint('user_id', { mode: 'number' }).notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    statusCode: integer('status_code'),
    responseBody: jsonb('response_body'),
    /** The attempt holding the key: a takeover changes it, so the attempt it replaced can no longer commit. */
    leaseToken: uuid('lease_token'),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    committed: boolean('committed').notNull().default(false),
    provisionalBody: jsonb('provisional_body'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.key] }),
    // The heartbeat renews its process's in-flight leases by token; only unanswered rows are indexed.
    index('idempotency_keys_lease_idx').on(t.leaseToken).where(sql`status_code is null`),
    // The periodic prune of expired keys.
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);
