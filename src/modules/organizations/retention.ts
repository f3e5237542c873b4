import { z } from 'zod';

/**
 * How long an organization keeps each kind of record, in days (docs/lgpd.md, "Retention"). The organization's
 * `retention` column holds only its overrides; null keeps the kind forever. The org-lifecycle module enforces
 * them (a maintenance step deleting in bounded batches).
 */
export const RETENTION_DEFAULTS = {
  /** Inbox messages (chat_messages), by the time they were written. */
  messages: 1825,
  /** Contact timelines (contact_activities). */
  timelines: 1825,
  /** Domain events (the outbox) once dispatched. */
  domainEvents: 90,
  /** Webhook delivery logs once delivered or failed. */
  webhookDeliveries: 30,
  /** Automation runs once finished. */
  automationRuns: 90,
  /** Campaign recipient rows of campaigns that ended (their statistics go with them). */
  campaignRecipients: 730,
} as const satisfies Record<string, number | null>;

export type RetentionKind = keyof typeof RETENTION_DEFAULTS;
export const RETENTION_KINDS = Object.keys(RETENTION_DEFAULTS) as RetentionKind[];
export type Retention = Record<RetentionKind, number | null>;

/** The organization's effective retention: its overrides over the defaults. */
export function effectiveRetention(overrides: Record<string, number | null> | null | undefined): Retention {
  const out = { ...RETENTION_DEFAULTS } as Retention;
  for (const kind of RETENTION_KINDS)
    if (overrides && Object.hasOwn(overrides, kind)) out[kind] = overrides[kind] ?? null;
  return out;
}

const days = z
  .number()
  .int()
  .min(1)
  .max(36500)
  .nullable()
  .describe('days a record is kept; null keeps it forever');

/** PUT /organizations/{id} `retention`: the kinds to change (others keep their value). */
export const retentionInput = z
  .strictObject(
    Object.fromEntries(RETENTION_KINDS.map((k) => [k, days.optional()])) as Record<
      RetentionKind,
      z.ZodOptional<typeof days>
    >,
  )
  .describe(
    `How long records are kept, in days (null: forever). Defaults: ${RETENTION_KINDS.map((k) => `${k} ${RETENTION_DEFAULTS[k]}`).join(', ')}`,
  );

export const retentionOutput = z
  .object(Object.fromEntries(RETENTION_KINDS.map((k) => [k, days])) as Record<RetentionKind, typeof days>)
  .describe('How long records are kept, in days (null: forever): the defaults unless changed');
