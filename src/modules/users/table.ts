import { bigint, boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from '../../platform/db/columns.js';

/** Users are global: one person may belong to several organizations. */
export const users = pgTable(
  'users',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    documentId: text('document_id').notNull(),
    username: text('username').notNull(),
    email: text('email').notNull(),
    /** The display name (issue 31): null until the person sets one; the app falls back to the username. */
    name: text('name'),
    passwordHash: text('password_hash').notNull(),
    blocked: boolean('blocked').notNull().default(false),
    confirmed: boolean('confirmed').notNull().default(true),
    /** Whether a comment's mention of this person is also e-mailed (PUT /users/me); the notification is made anyway. */
    mentionEmails: boolean('mention_emails').notNull().default(true),
    /** Session JWTs issued before this second are refused (set when the password changes); null: all stand. */
    sessionsValidFrom: timestamp('sessions_valid_from', { withTimezone: true, mode: 'date' }),
    /** The SHA-256 of the pending password reset code (e-mailed once, single use) and when it expires. */
    passwordResetHash: text('password_reset_hash'),
    passwordResetExpiresAt: timestamp('password_reset_expires_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('users_document_id_key').on(t.documentId),
    uniqueIndex('users_email_key').on(t.email),
    uniqueIndex('users_username_key').on(t.username),
    uniqueIndex('users_password_reset_hash_key').on(t.passwordResetHash),
  ],
);

/** Personal access tokens: only the SHA-256 of the token is kept. */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    documentId: text('document_id').notNull(),
    userId: bigint('user_id', { mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    tokenPrefix: text('token_prefix').notNull(),
    scopes: text('scopes').array(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('api_tokens_token_hash_key').on(t.tokenHash),
    uniqueIndex('api_tokens_document_id_key').on(t.documentId),
    index('api_tokens_user_id_idx').on(t.userId),
  ],
);
