import type { Tx } from '../../platform/db/client.js';
import * as repo from './repo.js';
import type { ConsentChannel, ConsentPurpose, ConsentSource } from './table.js';

/**
 * What other areas record in the ledger (docs/lgpd.md, "Consent sources"): the import's consent column, a lead
 * form's checkbox, the one-click unsubscribe. The keyword withdrawal is keywords.ts.
 */

const YES = new Set([
  'yes',
  'y',
  'sim',
  's',
  'true',
  '1',
  'x',
  'granted',
  'opt-in',
  'optin',
  'checked',
  'on',
  'aceito',
]);
const NO = new Set([
  'no',
  'n',
  'nao',
  'não',
  'false',
  '0',
  'withdrawn',
  'opt-out',
  'optout',
  'off',
  'recuso',
]);

/**
 * A checkbox's or a cell's answer: `granted`, `withdrawn`, null when empty (nothing to record), or undefined when
 * it is none of the accepted words (yes/sim/true/1/x/granted… or no/não/false/0/withdrawn…).
 */
export function parseConsentAnswer(raw: unknown): 'granted' | 'withdrawn' | null | undefined {
  if (raw === true) return 'granted';
  if (raw === false) return 'withdrawn';
  if (raw === undefined || raw === null) return null;
  const v = String(raw).trim().toLowerCase();
  if (v === '') return null;
  if (YES.has(v)) return 'granted';
  if (NO.has(v)) return 'withdrawn';
  return undefined;
}

/** Entries of the same statement for several contacts and channels (one insert). */
export function recordStatements(
  tx: Tx,
  orgId: number,
  s: {
    contactIds: number[];
    channels: readonly ConsentChannel[];
    purpose: ConsentPurpose;
    status: 'granted' | 'withdrawn';
    source: ConsentSource;
    proof: (contactId: number) => Record<string, unknown>;
    recordedBy?: number | null;
  },
) {
  return repo.insertConsents(
    tx,
    orgId,
    s.contactIds.flatMap((contactId) =>
      s.channels.map((channel) => ({
        contactId,
        channel,
        purpose: s.purpose,
        status: s.status,
        legalBasis: 'consent' as const,
        source: s.source,
        proof: s.proof(contactId),
        recordedBy: s.recordedBy ?? null,
      })),
    ),
  );
}

/** Withdraws `channel` marketing for the contacts whose current state is not already withdrawn; answers how many. */
export async function withdrawMarketingOnce(
  tx: Tx,
  orgId: number,
  contactIds: number[],
  channel: ConsentChannel,
  source: ConsentSource,
  proof: Record<string, unknown>,
) {
  const states = await repo.statusesOf(tx, orgId, contactIds, channel, 'marketing');
  const open = contactIds.filter((id) => states.get(id) !== 'withdrawn');
  await recordStatements(tx, orgId, {
    contactIds: open,
    channels: [channel],
    purpose: 'marketing',
    status: 'withdrawn',
    source,
    proof: () => proof,
  });
  return open.length;
}

/** An import column's consent target, `consent.<channel>.<purpose>`, from a header or an explicit mapping. */
export function consentColumnTarget(normalizedHeader: string): string | null {
  const m =
    /^(?:consent|consentimento|opt_?in)_(whatsapp|email|e_mail|sms)(?:_(marketing|transactional|transacional))?$/.exec(
      normalizedHeader,
    );
  if (!m) return null;
  const channel = m[1] === 'e_mail' ? 'email' : m[1];
  const purpose = m[2] === 'transacional' ? 'transactional' : (m[2] ?? 'marketing');
  return `consent.${channel}.${purpose}`;
}

export const isConsentTarget = (t: string) =>
  /^consent\.(whatsapp|email|sms)\.(marketing|transactional)$/.test(t);

export interface ImportedConsent {
  channel: ConsentChannel;
  purpose: ConsentPurpose;
  status: 'granted' | 'withdrawn';
}

/** A consent cell: the statement, null when empty, or an error message. */
export function importedConsent(target: string, cell: string): ImportedConsent | null | string {
  const [, channel, purpose] = target.split('.') as [string, ConsentChannel, ConsentPurpose];
  const status = parseConsentAnswer(cell);
  if (status === undefined)
    return 'must be yes/sim/true/1/x (granted) or no/não/false/0 (withdrawn); empty records nothing';
  return status ? { channel, purpose, status } : null;
}

/** The consent cells of imported rows, in the ledger (source import, proof: the rows and who imported). */
export function recordImported(
  tx: Tx,
  orgId: number,
  recordedBy: number | null,
  entries: { contactId: number; consents: ImportedConsent[]; rows: number[] }[],
) {
  return repo.insertConsents(
    tx,
    orgId,
    entries.flatMap((e) =>
      e.consents.map((c) => ({
        contactId: e.contactId,
        ...c,
        legalBasis: 'consent' as const,
        source: 'import' as const,
        proof: { import: 'csv', rows: e.rows },
        recordedBy,
      })),
    ),
  );
}
