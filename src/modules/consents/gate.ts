import { type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../platform/db/client.js';
import { findOrganizationById } from '../organizations/index.js';
import * as repo from './repo.js';
import type { ConsentChannel } from './table.js';

/**
 * The rule every marketing send follows (docs/lgpd.md, "Consent"): a contact whose current marketing state for the
 * channel is `withdrawn` is never written to; one with no state is written to only when the organization's
 * `marketingRequiresConsent` is off. Transactional sends and replies inside WhatsApp's 24-hour window do not ask.
 */
export const SKIP_NO_CONSENT = 'no_consent';
export const SKIP_WITHDRAWN = 'consent_withdrawn';
/** The skip reasons that count as `skippedNoConsent` in a campaign's stats. */
export const CONSENT_SKIP_REASONS = [SKIP_NO_CONSENT, SKIP_WITHDRAWN] as const;

/** Whether the organization's marketing needs an explicit granted consent (default yes). */
export async function marketingRequiresConsent(tx: Tx, orgId: number) {
  return (await findOrganizationById(tx, orgId))?.marketingRequiresConsent ?? true;
}

/**
 * An SQL expression over a contact id: null when marketing on `channel` may reach it, else the skip reason
 * (`no_consent`, `consent_withdrawn`). One primary-key lookup of the current state per contact.
 */
export function marketingSkipReasonSql(
  orgId: number,
  contactId: SQL,
  channel: ConsentChannel,
  required: boolean,
) {
  const none = required ? sql.raw(`'${SKIP_NO_CONSENT}'`) : sql.raw('null');
  return sql`(case coalesce((select cs.status from contact_consent_states cs
                 where cs.organization_id = ${orgId} and cs.contact_id = ${contactId}
                   and cs.channel = ${channel} and cs.purpose = 'marketing'), 'none')
               when 'granted' then null when 'withdrawn' then ${sql.raw(`'${SKIP_WITHDRAWN}'`)} else ${none} end)`;
}

/** The contacts of `contactIds` that marketing on `channel` may not reach now, with the reason. */
export async function marketingBlocks(tx: Tx, orgId: number, contactIds: number[], channel: ConsentChannel) {
  const out = new Map<number, string>();
  if (contactIds.length === 0) return out;
  const required = await marketingRequiresConsent(tx, orgId);
  const states = await repo.statusesOf(tx, orgId, contactIds, channel, 'marketing');
  for (const id of contactIds) {
    const status = states.get(id);
    if (status === 'withdrawn') out.set(id, SKIP_WITHDRAWN);
    else if (status !== 'granted' && required) out.set(id, SKIP_NO_CONSENT);
  }
  return out;
}

/**
 * Whether the contact withdrew marketing on `channel`: the opt-out every marketing send honours, even one a
 * person sends from a conversation (a MARKETING template; docs/lgpd.md, "Sends").
 */
export async function marketingWithdrawn(tx: Tx, orgId: number, contactId: number, channel: ConsentChannel) {
  const states = await repo.statusesOf(tx, orgId, [contactId], channel, 'marketing');
  return states.get(contactId) === 'withdrawn';
}

/** A human sentence for a skip reason (automation results). */
export function skipSentence(reason: string, channel: ConsentChannel) {
  return reason === SKIP_WITHDRAWN
    ? `the contact withdrew ${channel} marketing consent: not sent`
    : `the contact has no ${channel} marketing consent and the organization requires one: not sent`;
}
