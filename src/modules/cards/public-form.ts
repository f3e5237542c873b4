import type { Database } from '../../platform/db/client.js';
import { AppError } from '../../platform/http/errors.js';
import { isoRequired } from '../../platform/http/schemas.js';
import { type FieldStructure, publicBoardTransaction } from '../boards/index.js';
import { recordStatements } from '../consents/index.js';
import { insertActivities, matchOrMakeContacts } from '../contacts/index.js';
import { structureOf } from './board-scope.js';
import { createCardIn } from './prepare.js';
import type { Tracking } from './table.js';

/** Field slugs a form's person is named by (docs/decisions.md, "The public form's contact"). */
const NAME_SLUGS = new Set(['name', 'nome', 'full-name', 'full_name', 'nome-completo', 'nome_completo']);

/** Who filled the form in: the first e-mail and phone fields' values, and a name field's. */
function personOf(entryFields: FieldStructure[], values: Record<string, unknown>) {
  const first = (match: (f: FieldStructure) => boolean) => {
    for (const f of entryFields) {
      const v = values[f.slug];
      if (match(f) && typeof v === 'string' && v.trim()) return v.trim();
    }
    return undefined;
  };
  const person = {
    email: first((f) => f.type === 'email'),
    phone: first((f) => f.type === 'phone'),
    name: first((f) => f.type === 'text' && NAME_SLUGS.has(f.slug)),
  };
  return Object.fromEntries(Object.entries(person).filter(([, v]) => v)) as Record<string, string>;
}

export interface FormSubmitter {
  /** The consent checkbox was ticked (`consent: true`). */
  consent: boolean;
  /** The submitter's address as the service saw it (proof of the consent). */
  ip: string;
}

/**
 * The board's public entry form: a card from outside, no member acting, its fields limited to the entry phase.
 * The person the form names by its e-mail or phone field becomes the card's contact (matched in the board's
 * organization, else made, as for a lead ad); a ticked consent checkbox is recorded in their consent ledger with
 * the form's text, the form and the IP as proof. Card, contact and consent commit together or not at all.
 */
export async function submitPublicForm(
  db: Database,
  boardId: string,
  fields: Record<string, unknown>,
  tracking: Tracking,
  submitter: FormSubmitter,
) {
  return publicBoardTransaction(db, boardId, async (tx, orgId, board) => {
    const structure = await structureOf(tx, orgId, board);
    const entry = structure.entryPhase;
    if (!entry) throw new AppError('NotFoundError', 'This board has no entry form');
    const consent = board.formConsent;
    if (submitter.consent && !consent)
      throw new AppError('BadRequestError', 'This form asks no consent: send the fields without `consent`', {
        field: 'consent',
      });
    const values = personOf(entry.fields, fields);
    if (submitter.consent && !values.email && !values.phone)
      throw new AppError(
        'BadRequestError',
        "A consent is recorded for a person reached by e-mail or phone: fill the form's e-mail or phone field",
        { field: 'consent' },
      );
    const contact =
      values.email || values.phone
        ? (await matchOrMakeContacts(tx, orgId, [{ values, fallbackName: board.name }]))[0]
        : null;
    const row = await createCardIn(
      tx,
      { orgId, membershipId: null, ctx: null },
      structure,
      { fields, ...(contact ? { contact: contact.row.documentId } : {}) },
      { source: 'form', tracking, fieldOptions: { phaseIds: new Set([entry.id]) } },
    );
    if (contact?.created)
      await insertActivities(tx, orgId, [
        {
          contactId: contact.row.id,
          activityType: 'contact_created',
          description: `Contact ${contact.row.name} created from the public form of board "${board.name}"`,
          actorId: null,
        },
      ]);
    if (contact && consent && submitter.consent)
      await recordStatements(tx, orgId, {
        contactIds: [contact.row.id],
        channels: consent.channels,
        purpose: consent.purpose,
        status: 'granted',
        source: 'form',
        proof: () => ({
          formId: board.documentId,
          board: board.name,
          card: row.documentId,
          ip: submitter.ip,
          text: consent.text,
        }),
      });
    return { documentId: row.documentId, createdAt: isoRequired(row.createdAt) };
  });
}
