import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Instance-wide generated secrets (the session-signing key), shared by every process on the database. */
export const instanceSecrets = pgTable('instance_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
