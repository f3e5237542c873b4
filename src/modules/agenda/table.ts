import {
  bigint,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantColumns, timestamps } from '../../platform/db/columns.js';
import { inList } from '../boards/table.js';
import { cards } from '../cards/table.js';
import { memberships } from '../organizations/table.js';

export const CALENDAR_PROVIDERS = ['caldav'] as const;
export const MEETING_STATUSES = ['scheduled', 'cancelled'] as const;

/** A member's calendar (CalDAV): one per membership; the password is sealed (platform/secrets/encryption.ts). */
export const calendarConnections = pgTable(
  'calendar_connections',
  {
    ...tenantColumns(),
    membershipId: bigint('membership_id', { mode: 'number' }).notNull(),
    provider: text('provider').notNull().default('caldav'),
    url: text('url').notNull(),
    username: text('username').notNull(),
    passwordSealed: text('password_sealed').notNull(),
    /** The calendar collection discovery chose (events are read from and written to it). */
    calendarUrl: text('calendar_url').notNull(),
    displayName: text('display_name'),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('calendar_connections_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('calendar_connections_org_membership_key').on(t.organizationId, t.membershipId),
    foreignKey({
      name: 'calendar_connections_membership_fk',
      columns: [t.organizationId, t.membershipId],
      foreignColumns: [memberships.organizationId, memberships.id],
    }).onDelete('cascade'),
    check('calendar_connections_provider_check', inList('provider', CALENDAR_PROVIDERS)),
  ],
);

export interface Attendee {
  email: string;
  name: string | null;
}

/** Meetings on cards, written to the organizer's calendar; cancelled ones stay (status cancelled). */
export const calendarMeetings = pgTable(
  'calendar_meetings',
  {
    ...tenantColumns(),
    cardId: bigint('card_id', { mode: 'number' }).notNull(),
    organizerMembershipId: bigint('organizer_membership_id', { mode: 'number' }),
    uid: text('uid').notNull(),
    /** The calendar object's URL on the organizer's CalDAV server, and its last known ETag. */
    objectUrl: text('object_url').notNull(),
    etag: text('etag'),
    sequence: integer('sequence').notNull().default(0),
    title: text('title').notNull(),
    description: text('description'),
    location: text('location'),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
    attendees: jsonb('attendees').$type<Attendee[]>().notNull().default([]),
    status: text('status').notNull().default('scheduled'),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('calendar_meetings_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('calendar_meetings_org_uid_key').on(t.organizationId, t.uid),
    index('calendar_meetings_org_card_idx').on(t.organizationId, t.cardId, t.startsAt),
    foreignKey({
      name: 'calendar_meetings_card_fk',
      columns: [t.organizationId, t.cardId],
      foreignColumns: [cards.organizationId, cards.id],
    }).onDelete('cascade'),
    check('calendar_meetings_status_check', inList('status', MEETING_STATUSES)),
  ],
);
