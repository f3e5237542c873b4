import { sql } from 'drizzle-orm';
import {
  bigint,
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
import { boards } from '../boards/table.js';

export const INTEGRATION_STATUSES = ['connected', 'expired', 'revoked'] as const;
export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;

/**
 * A connection to the lead ads provider, made by the OAuth code flow (or a token given): the provider user and
 * the long-lived user token, sealed (platform/secrets/encryption.ts, bound to the organization and the row).
 * `status` says when the provider refused the token (expired, revoked): reconnecting updates this row.
 */
export const leadIntegrations = pgTable(
  'lead_integrations',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    providerUserId: text('provider_user_id').notNull(),
    providerUserName: text('provider_user_name'),
    status: text('status', { enum: INTEGRATION_STATUSES }).notNull().default('connected'),
    statusMessage: text('status_message'),
    credentials: text('credentials').notNull(),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true, mode: 'date' }),
    connectedByMembershipId: bigint('connected_by_membership_id', { mode: 'number' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('lead_integrations_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('lead_integrations_org_provider_user_key').on(t.organizationId, t.providerUserId),
  ],
);

/** The pages an integration can read, each with its page token (sealed). */
export const leadIntegrationPages = pgTable(
  'lead_integration_pages',
  {
    organizationId: bigint('organization_id', { mode: 'number' }).notNull(),
    integrationId: bigint('integration_id', { mode: 'number' }).notNull(),
    pageId: text('page_id').notNull(),
    name: text('name').notNull(),
    credentials: text('credentials').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.integrationId, t.pageId] }),
    foreignKey({
      name: 'lead_integration_pages_integration_fk',
      columns: [t.organizationId, t.integrationId],
      foreignColumns: [leadIntegrations.organizationId, leadIntegrations.id],
    }).onDelete('cascade'),
  ],
);

export interface FieldMapping {
  mappings: { source: string; target: string }[];
}

/** A route's consent checkbox: the lead's answer to `field` grants `purpose` on `channels` (consents module). */
export interface ConsentCapture {
  field: string;
  channels: ('whatsapp' | 'email' | 'sms')[];
  purpose: 'marketing' | 'transactional';
  text: string;
}

/**
 * A lead form routed to a board. `page_id` + `form_id` are what a leadgen webhook names: the public webhook
 * finds the routes of every organization by them (the one index not led by the tenant: docs/lead-ads.md).
 */
export const leadFormRoutes = pgTable(
  'lead_form_routes',
  {
    ...tenantColumns(),
    name: text('name').notNull(),
    integrationId: bigint('integration_id', { mode: 'number' }).notNull(),
    boardId: bigint('board_id', { mode: 'number' }).notNull(),
    pageId: text('page_id').notNull(),
    formId: text('form_id').notNull(),
    formName: text('form_name'),
    fieldMapping: jsonb('field_mapping').$type<FieldMapping>().notNull(),
    consentCapture: jsonb('consent_capture').$type<ConsentCapture>(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('lead_form_routes_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('lead_form_routes_org_form_key').on(t.organizationId, t.formId),
    index('lead_form_routes_org_integration_idx').on(t.organizationId, t.integrationId),
    index('lead_form_routes_page_form_idx').on(t.pageId, t.formId),
    foreignKey({
      name: 'lead_form_routes_integration_fk',
      columns: [t.organizationId, t.integrationId],
      foreignColumns: [leadIntegrations.organizationId, leadIntegrations.id],
    }),
    foreignKey({
      name: 'lead_form_routes_board_fk',
      columns: [t.organizationId, t.boardId],
      foreignColumns: [boards.organizationId, boards.id],
    }).onDelete('cascade'),
  ],
);

/**
 * One lead of one organization: received from the webhook, then fetched and made a card by a job. The unique
 * (organization, leadgen id) is what makes a lead processed once, however often the provider repeats it.
 */
export const leadDeliveries = pgTable(
  'lead_deliveries',
  {
    ...tenantColumns(),
    routeId: bigint('route_id', { mode: 'number' }).notNull(),
    leadgenId: text('leadgen_id').notNull(),
    pageId: text('page_id').notNull(),
    formId: text('form_id').notNull(),
    adId: text('ad_id'),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    cardId: bigint('card_id', { mode: 'number' }),
    cardDocumentId: text('card_document_id'),
    contactDocumentId: text('contact_document_id'),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('lead_deliveries_org_document_id_key').on(t.organizationId, t.documentId),
    uniqueIndex('lead_deliveries_org_leadgen_key').on(t.organizationId, t.leadgenId),
    index('lead_deliveries_org_route_idx').on(t.organizationId, t.routeId, t.id.desc()),
    index('lead_deliveries_org_status_idx')
      .on(t.organizationId, t.status)
      .where(sql`status in ('pending', 'retrying', 'failed')`),
    foreignKey({
      name: 'lead_deliveries_route_fk',
      columns: [t.organizationId, t.routeId],
      foreignColumns: [leadFormRoutes.organizationId, leadFormRoutes.id],
    }).onDelete('cascade'),
  ],
);
