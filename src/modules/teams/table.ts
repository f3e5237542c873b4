import {
  bigint,
  foreignKey,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { memberships } from '../organizations/table.js';

/** Teams of an organization (configured by admins); contacts may belong to one team. */
export const teams = pgTable(
  'teams',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    description: text('description'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('teams_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('teams_org_name_key').on(t.organizationId, t.name),
  ],
);

/** Membership of a team: removing the team or the membership removes the row. */
export const teamMembers = pgTable(
  'team_members',
  {
    ...tenantColumns(),
    teamId: bigint('team_id', { mode: 'number' }).notNull(),
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('team_members_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('team_members_org_team_membership_key').on(t.organizationId, t.teamId, t.membershipId),
    index('team_members_org_membership_idx').on(t.organizationId, t.membershipId),
    foreignKey({
      columns: [t.organizationId, t.teamId],
      foreignColumns: [teams.organizationId, teams.id],
    }).onDelete('cascade'),
    foreignKey({
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
  ],
);
