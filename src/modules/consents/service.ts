import { audit } from '../../platform/audit/audit.js';
import type { Tx } from '../../platform/db/client.js';
import { notFound } from '../../platform/http/errors.js';
import { iso, isoRequired } from '../../platform/http/schemas.js';
import { requireRole, type TenantContext } from '../../platform/tenancy/context.js';
import { findContact } from '../contacts/index.js';
import * as repo from './repo.js';
import type { ConsentEntry, ConsentInput } from './schema.js';
import { CONSENT_CHANNELS, CONSENT_PURPOSES } from './table.js';

const HISTORY_LIMIT = 1000;

async function contactOr404(tx: Tx, orgId: number, documentId: string) {
  const contact = await findContact(tx, orgId, documentId);
  if (!contact) throw notFound('Contact');
  return contact;
}

/** GET /contacts/{id}/consents: the current state of every channel and purpose, then the ledger, newest first. */
export async function listConsents(ctx: TenantContext, contactDocumentId: string) {
  return ctx.transaction(async (tx) => {
    const contact = await contactOr404(tx, ctx.orgId, contactDocumentId);
    const states = await repo.currentStates(tx, ctx.orgId, contact.id);
    const history = await repo.history(tx, ctx.orgId, contact.id, HISTORY_LIMIT);
    const current = CONSENT_CHANNELS.flatMap((channel) =>
      CONSENT_PURPOSES.map((purpose) => {
        const s = states.find((x) => x.channel === channel && x.purpose === purpose);
        return {
          channel,
          purpose,
          status: s?.status ?? ('none' as const),
          legalBasis: s?.legal_basis ?? null,
          source: s?.source ?? null,
          recordedAt: iso(s?.recorded_at),
          entry: s?.document_id ?? null,
        };
      }),
    );
    return {
      contact: contact.documentId,
      current,
      history: history.map((h) => ({ ...h, recordedAt: isoRequired(h.recordedAt) })),
    };
  });
}

/** POST /contacts/{id}/consents: appends one entry (members and up); the ledger is never changed. */
export async function recordConsent(
  ctx: TenantContext,
  contactDocumentId: string,
  input: ConsentInput,
): Promise<ConsentEntry> {
  requireRole(ctx, 'member');
  return ctx.transaction(async (tx) => {
    const contact = await contactOr404(tx, ctx.orgId, contactDocumentId);
    const [row] = await repo.insertConsents(tx, ctx.orgId, [
      { ...input, contactId: contact.id, recordedBy: ctx.membershipId },
    ]);
    await audit(tx, ctx, 'contact_consent.recorded', row.documentId, {
      contact: contact.documentId,
      channel: row.channel,
      purpose: row.purpose,
      status: row.status,
    });
    const [entry] = await repo.history(tx, ctx.orgId, contact.id, 1);
    return { ...entry, recordedAt: isoRequired(entry.recordedAt) };
  });
}
