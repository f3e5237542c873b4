import { sql } from 'drizzle-orm';
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
import { chatChannels } from '../channels/table.js';
import { emailTemplates } from '../email-templates/table.js';

export const CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'processing',
  'paused',
  'completed',
  'failed',
  'cancelled',
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * A campaign sends one template through one channel to a segment's contacts. `segment_id` and
 * `whatsapp_template_id` have no foreign key: deleting a segment or a template synced away leaves the
 * campaign readable (trigger then says what is missing); the e-mail template is protected (NO ACTION).
 */
export const campaigns = pgTable(
  'campaigns',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    description: text('description'),
    channelId: bigint('channel_id', { mode: 'number' }).notNull(),
    segmentId: bigint('segment_id', { mode: 'number' }),
    emailTemplateId: bigint('email_template_id', { mode: 'number' }),
    whatsappTemplateId: bigint('whatsapp_template_id', { mode: 'number' }),
    status: text('status', { enum: CAMPAIGN_STATUSES }).notNull().default('draft'),
    variables: jsonb('variables').$type<Record<string, unknown>>().notNull().default({}),
    messageConfig: jsonb('message_config').$type<Record<string, unknown>>().notNull().default({}),
    scheduledAt: timestamp('scheduled_at', { withTimezone: true, mode: 'date' }),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    /** Last sign of life of a dispatcher: the watchdog restarts processing campaigns whose dispatcher died. */
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }),
    error: text('error'),
    createdBy: bigint('created_by', { mode: 'number' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('campaigns_org_document_id_key').on(t.organizationId, t.documentId),
    index('campaigns_org_status_idx').on(t.organizationId, t.status),
    index('campaigns_org_channel_idx').on(t.organizationId, t.channelId),
    index('campaigns_status_heartbeat_idx').on(t.status, t.heartbeatAt),
    foreignKey({
      name: 'campaigns_channel_fk',
      columns: [t.organizationId, t.channelId],
      foreignColumns: [chatChannels.organizationId, chatChannels.id],
    }),
    foreignKey({
      name: 'campaigns_email_template_fk',
      columns: [t.organizationId, t.emailTemplateId],
      foreignColumns: [emailTemplates.organizationId, emailTemplates.id],
    }),
  ],
);

export const RECIPIENT_STATUSES = ['pending', 'sending', 'sent', 'failed', 'skipped'] as const;

/**
 * One row per (campaign, contact), fixed when the campaign starts: the send ledger. A dispatcher claims rows
 * (pending → sending, committed) before the provider call and settles them after (sent / failed), so a
 * recipient is sent at most once even if a process dies mid-send (docs/messaging.md).
 */
export const campaignRecipients = pgTable(
  'campaign_recipients',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    campaignId: bigint('campaign_id', { mode: 'number' }).notNull(),
    /** contacts.id; no foreign key: a contact deleted before its turn is skipped, its row stays for the stats. */
    contactId: bigint('contact_id', { mode: 'number' }).notNull(),
    address: text('address').notNull(),
    status: text('status', { enum: RECIPIENT_STATUSES }).notNull().default('pending'),
    skipReason: text('skip_reason'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }),
    /**
     * Set (committed) right before the provider call of this claim: a row a dead dispatcher left `sending` without
     * it was never attempted and goes back to pending; with it, its outcome is unknown and it is never resent.
     */
    attemptedAt: timestamp('attempted_at', { withTimezone: true, mode: 'date' }),
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    openedAt: timestamp('opened_at', { withTimezone: true, mode: 'date' }),
    clickedAt: timestamp('clicked_at', { withTimezone: true, mode: 'date' }),
    bouncedAt: timestamp('bounced_at', { withTimezone: true, mode: 'date' }),
    complainedAt: timestamp('complained_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('campaign_recipients_org_campaign_contact_key').on(
      t.organizationId,
      t.campaignId,
      t.contactId,
    ),
    uniqueIndex('campaign_recipients_org_campaign_address_key').on(t.organizationId, t.campaignId, t.address),
    index('campaign_recipients_org_campaign_status_idx').on(t.organizationId, t.campaignId, t.status, t.id),
    index('campaign_recipients_org_message_idx')
      .on(t.organizationId, t.providerMessageId)
      .where(sql`provider_message_id is not null`),
    foreignKey({
      name: 'campaign_recipients_campaign_fk',
      columns: [t.organizationId, t.campaignId],
      foreignColumns: [campaigns.organizationId, campaigns.id],
    }).onDelete('cascade'),
  ],
);

export const SUPPRESSION_REASONS = ['unsubscribed', 'bounced', 'complained', 'manual'] as const;

/** Addresses (lower-case e-mail, or +digits phone) no campaign sends to. */
export const suppressions = pgTable(
  'suppressions',
  {
    ...tenantColumns(),
    address: text('address').notNull(),
    reason: text('reason', { enum: SUPPRESSION_REASONS }).notNull(),
    campaignId: bigint('campaign_id', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('suppressions_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('suppressions_org_address_key').on(t.organizationId, t.address),
    check('suppressions_address_check', sql`address = lower(address)`),
  ],
);
