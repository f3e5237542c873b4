import { z } from 'zod';
import { listQueryShape } from '../../platform/http/list-query.js';

export const auditLogEntry = z
  .object({
    id: z.number().describe('the entry’s number in the organization’s log (increasing)'),
    action: z.string().describe('what was done, e.g. `card.deleted`, `organization.updated`'),
    actor: z
      .object({ documentId: z.string(), username: z.string(), email: z.string() })
      .nullable()
      .describe('the user who did it; null for the system or a user who no longer exists'),
    target: z.string().nullable().describe('documentId of the record acted on'),
    data: z.unknown().describe('what changed, as the action records it'),
    createdAt: z.string(),
  })
  .meta({ id: 'AuditLogEntry' });

const date = z.iso
  .datetime({ offset: true })
  .or(z.iso.date())
  .describe('an ISO 8601 date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z');

/**
 * Strapi list parameters (filters on action, target, createdAt and actor.email / actor.username /
 * actor.documentId; sort; pagination) plus shortcuts for the common filters.
 */
export const auditLogQuery = z.strictObject({
  ...listQueryShape,
  action: z.string().max(200).optional().describe('only this action (same as filters[action][$eq])'),
  actor: z.string().max(200).optional().describe('only entries by this user: documentId, e-mail or username'),
  target: z.string().max(200).optional().describe('only entries about this record (its documentId)'),
  from: date.optional().describe('entries at or after this instant (a date: its start, UTC)'),
  to: date.optional().describe('entries before this instant (a date: the end of that day, UTC)'),
});
