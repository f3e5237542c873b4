import {
  bigint,
  foreignKey,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns } from '../../platform/db/columns.js';
import { memberships } from '../organizations/table.js';

/**
 * A write an agent (the MCP tool server) wants to make for a member: the member approves or declines it in the
 * web application, signed in; the tool server then redeems the approval once, for exactly these arguments.
 */
export const agentConfirmations = pgTable(
  'agent_confirmations',
  {
    ...tenantColumns(),
    /** Whose assistant asks: only this member sees, decides and redeems it. */
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
    tool: text('tool').notNull(),
    summary: text('summary').notNull(),
    arguments: jsonb('arguments').$type<Record<string, unknown>>().notNull(),
    /** sha256 of the tool name and the canonical JSON of the arguments. */
    argumentsHash: text('arguments_hash').notNull(),
    /** What the call would do (the dry run's answer), for the person to see. */
    preview: jsonb('preview').$type<unknown>(),
    /** pending → approved | declined; approved → used. Expiry is computed from expires_at. */
    status: text('status').$type<'pending' | 'approved' | 'declined' | 'used'>().notNull().default('pending'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('agent_confirmations_org_document_id_key').on(t.organizationId, t.documentId),
    foreignKey({
      name: 'agent_confirmations_membership_fk',
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
  ],
);
