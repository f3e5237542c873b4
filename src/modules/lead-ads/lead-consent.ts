import type { Tx } from '../../platform/db/client.js';
import { type ConsentChannel, parseConsentAnswer, recordStatements } from '../consents/index.js';
import type { ConsentCapture } from './table.js';

interface LeadWithContact {
  lead: {
    route: { documentId: string; formId: string; consentCapture: ConsentCapture | null };
    lead: { id: string; fieldData: { name: string; values: string[] }[] };
  };
  row: { id: number };
}

/**
 * A route's consent checkbox (docs/lgpd.md, "Consent"): the lead's answer to the route's field, when it is one
 * (yes/sim/true/1 or no/não/false/0), recorded for each of the route's channels with source `lead_ad` and the form's
 * consent text as proof, in the transaction that makes the lead's card. An absent or other answer records nothing.
 */
export async function recordLeadConsents(tx: Tx, orgId: number, done: LeadWithContact[]) {
  for (const { lead, row } of done) {
    const capture = lead.route.consentCapture;
    if (!capture) continue;
    const answer = lead.lead.fieldData.find((f) => f.name === capture.field)?.values.join(',');
    const status = parseConsentAnswer(answer);
    if (!status) continue;
    await recordStatements(tx, orgId, {
      contactIds: [row.id],
      channels: capture.channels as ConsentChannel[],
      purpose: capture.purpose,
      status,
      source: 'lead_ad',
      proof: () => ({
        leadgenId: lead.lead.id,
        formId: lead.route.formId,
        route: lead.route.documentId,
        field: capture.field,
        answer,
        text: capture.text,
      }),
    });
  }
}
