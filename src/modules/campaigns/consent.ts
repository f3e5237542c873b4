import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../platform/db/client.js';
import {
  type ConsentChannel,
  marketingBlocks,
  marketingRequiresConsent,
  marketingSkipReasonSql,
} from '../consents/index.js';
import type * as repo from './repo.js';

/**
 * Campaigns are marketing (docs/lgpd.md, "Consent"): a recipient without a granted marketing consent for the
 * campaign's channel (when the organization requires one) or who withdrew it is skipped with the reason
 * `no_consent` / `consent_withdrawn`, counted as `skippedNoConsent`. Checked when the audience is fixed, and
 * again for each claimed batch, so a withdrawal during the campaign stops the messages not yet sent.
 */

/** At the start: the audience's pending rows that marketing may not reach become skipped; answers how many. */
export async function skipWithoutConsent(tx: Tx, orgId: number, campaignId: number, channel: ConsentChannel) {
  const required = await marketingRequiresConsent(tx, orgId);
  const reason = marketingSkipReasonSql(orgId, sql`r.contact_id`, channel, required);
  const rows = await queryRows<{ n: number }>(
    tx,
    sql`with blocked as (
          select r.id, ${reason} as reason from campaign_recipients r
          where r.organization_id = ${orgId} and r.campaign_id = ${campaignId} and r.status = 'pending'),
        skipped as (
          update campaign_recipients r set status = 'skipped', skip_reason = blocked.reason
          from blocked where r.organization_id = ${orgId} and r.id = blocked.id and blocked.reason is not null
          returning 1)
        select count(*)::int as n from skipped`,
  );
  return rows[0]?.n ?? 0;
}

/** Before a batch is sent: the claimed recipients marketing may no longer reach, as settled skips by row id. */
export async function consentSkips(
  tx: Tx,
  orgId: number,
  channel: ConsentChannel,
  batch: Pick<repo.ClaimedRecipient, 'id' | 'contact_id'>[],
) {
  const blocks = await marketingBlocks(
    tx,
    orgId,
    [...new Set(batch.map((r) => Number(r.contact_id)))],
    channel,
  );
  const out = new Map<number, repo.SendResult>();
  for (const r of batch) {
    const reason = blocks.get(Number(r.contact_id));
    if (reason) out.set(r.id, { id: r.id, outcome: 'skipped', error: reason });
  }
  return out;
}
