import type { Board, Conversation, Ref } from '../api';

/** A board's people (owner, editors, members), each once. */
export const people = (b: Board): Ref[] => {
  const seen = new Map<string, Ref>();
  for (const p of [b.owner, ...b.editors, ...b.members])
    if (p && !seen.has(p.documentId)) seen.set(p.documentId, p);
  return [...seen.values()];
};
export { personName } from './people';

/** A conversation's contact: the contact's name, else the WhatsApp number. */
export const contactLabel = (c: Conversation) => c.contact?.name || `+${c.waId}`;
