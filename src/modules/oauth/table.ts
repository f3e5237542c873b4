import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The OAuth authorization server's records (oidc-provider's adapter, adapter.ts): grants, authorization codes,
 * access and refresh tokens, interactions, sessions and dynamically registered clients, shared by every API
 * process. The id of a bearer record (a token, a code, a session or interaction cookie) is stored as its
 * SHA-256 only; `user_id` is the consenting user of a grant (Settings lists and revokes them).
 */
export const oauthRecords = pgTable(
  'oauth_records',
  {
    kind: text('kind').notNull(),
    id: text('id').notNull(),
    payload: jsonb('payload').notNull(),
    grantId: text('grant_id'),
    uid: text('uid'),
    userId: bigint('user_id', { mode: 'number' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.id] }),
    index('oauth_records_grant_idx').on(t.grantId),
    index('oauth_records_uid_idx').on(t.uid),
    index('oauth_records_user_idx').on(t.userId, t.kind),
    index('oauth_records_expires_idx').on(t.expiresAt),
  ],
);
