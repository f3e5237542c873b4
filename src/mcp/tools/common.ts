import { z } from 'zod';
import type { Tool } from '../tool-kit.js';

/** A date-time argument: ISO 8601 with an offset (`format: date-time`), checked before anything is asked. */
export const dateTime = () => z.iso.datetime({ offset: true });

/** A calendar date argument, YYYY-MM-DD (`format: date`). */
export const dateOnly = () => z.iso.date();

const DOCUMENT_ID = /^[a-z0-9]{24}$/;

/** The tool that lists each kind of record (the start of a docId's `what`), longest kind first. */
const LISTERS: [kind: string, tool: string][] = [
  ['WhatsApp template', 'crm.list_whatsapp_templates'],
  ['e-mail template', 'crm.list_email_templates'],
  ['product category', 'crm.list_product_categories'],
  ['chat channel', 'crm.list_chat_channels'],
  ['e-mail channel', 'crm.list_chat_channels'],
  ['contact', 'crm.search_contacts'],
  ['product', 'crm.list_products'],
  ['segment', 'crm.list_segments'],
  ['meeting', 'crm.list_card_meetings'],
  ['board', 'crm.list_boards'],
  ['card', 'crm.search_cards'],
  ['task', 'crm.list_tasks'],
];

/** `; crm.search_contacts lists them` for a contact, or nothing for a kind without a listing tool. */
export function listedBy(what: string): string {
  const tool = LISTERS.find(([k]) => what.startsWith(k))?.[1];
  return tool ? `; ${tool} lists them` : '';
}

/**
 * A documentId argument (never a numeric id, a slug or a name). A value of another kind is refused before any
 * request, saying which kind is expected and which tool lists them.
 */
export const docId = (what: string) => {
  const kind = LISTERS.find(([k]) => what.startsWith(k))?.[0] ?? what.replace(/ \(.*$/, '');
  const expected = `takes the ${kind}'s documentId (24 lowercase letters and digits)${listedBy(what)}`;
  return z
    .string({
      error: (i) =>
        i.input === undefined
          ? `required: the ${kind}'s documentId${listedBy(what)}`
          : `${expected}, not a ${typeof i.input === 'number' ? 'number (numeric ids belong to the inbox)' : typeof i.input}`,
    })
    .refine((v) => DOCUMENT_ID.test(v), {
      error: (i) =>
        `${expected}; "${String(i.input).slice(0, 40)}" is not one (a slug, a name or a numeric id?)`,
    })
    .describe(`documentId of the ${what.replace(/ \(see [^)]*\)/, '')}`);
};

/**
 * A documentId in a batch of ids (crm.get_cards, crm.get_contacts): any text is taken, and ids that match no
 * record come back in `missing`.
 */
export const docIdItem = (what: string) =>
  z.string().min(1).max(64).describe(`documentId of the ${what} (not a numeric id)`);

/**
 * A numeric id argument (inbox, conversation, message): a number, or the same number written as digits
 * (`"12"`); a documentId is refused, saying which tool lists the ids.
 */
export const numericId = (what: string, where: string) =>
  z
    .preprocess(
      (v) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v),
      z
        .number({
          error: (i) =>
            i.input === undefined
              ? `required: the numeric ${what} id (${where})`
              : `takes the numeric ${what} id (${where}), not ${typeof i.input === 'string' ? `"${i.input.slice(0, 40)}" (documentIds belong to contacts, cards, boards and channels)` : `a ${typeof i.input}`}`,
        })
        .int(`takes a whole number: the numeric ${what} id (${where})`)
        .positive(`takes a positive number: the numeric ${what} id (${where})`),
    )
    .describe(`numeric ${what} id (${where})`);

export const deletedOutput = z.object({
  documentId: z.string().describe('documentId of the deleted record'),
  deleted: z.literal(true),
});

export const membershipRef = z.object({
  documentId: z.string().describe('membership documentId (what assignee fields take)'),
  user: z.object({ username: z.string(), email: z.string(), blocked: z.boolean() }),
});

/**
 * The tools of a BETA area (spec, Versioning 2: agenda and meetings, channels and their templates, e-mail
 * templates): each description begins with the warning, as the area's REST operations do.
 */
export const beta = (tools: Tool[]): Tool[] =>
  tools.map((t) => ({
    ...t,
    description: `BETA: ${t.description}`,
  }));
