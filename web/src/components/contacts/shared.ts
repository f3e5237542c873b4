import type { Schemas } from '../../api';
import { getLang } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { fieldMessage } from '../../lib/errors';
import { personName } from '../../lib/people';
import { num, pluralOf } from '../../lib/words';
import * as catalogue from '../../words/contacts';

/** The contacts area's words (web/src/words/contacts.ts). */
export const cw = wordsOf(catalogue);
export type ContactKey = keyof typeof catalogue.ptBR;

export type Contact = Schemas['Contact'];

/** A count in words, in the plural form the chosen language asks for (`{n}` as Intl writes the number). */
export const counted = (n: number, one: ContactKey, many: ContactKey) =>
  cw(pluralOf(n, one, many), { n: num(n) });

/** The attributes a person edits, in the editor's order (customFields apart). */
export const TEXT_FIELDS = [
  'name',
  'email',
  'phone',
  'cpf',
  'cnpj',
  'address',
  'city',
  'state',
  'country',
  'postal_code',
] as const;
export const DATE_FIELDS = ['birthdate', 'first_buy_date'] as const;
export const ALL_FIELDS = [
  ...TEXT_FIELDS,
  ...DATE_FIELDS,
  'contact_type',
  'owner',
  'team',
  'customFields',
] as const;

/** An attribute's name as a word ("postal_code" → CEP); an unknown one (a custom key) as it is. */
export function fieldWord(field: string | null | undefined): string {
  if (!field) return '';
  if (field.startsWith('customFields.')) return cw('custom', { key: field.slice(13) });
  if (field.startsWith('consent.')) return cw(`consent_${field.slice(8).replace('.', '_')}` as ContactKey);
  if (field === 'contact_type') return cw('type');
  const key = field as ContactKey;
  return key in catalogue.ptBR ? cw(key) : field;
}

/** The contact type as a word. */
export const typeWord = (t: string | null | undefined) => (t ? cw(`type_${t}` as ContactKey) : '');

/** A contact's value of one attribute as text (owner and team by name). */
export function valueText(c: Contact, field: string): string {
  if (field === 'owner') return c.owner ? personName(c.owner) : '';
  if (field === 'team') return c.team?.name ?? '';
  if (field === 'contact_type') return typeWord(c.contact_type);
  const v = (c as unknown as Record<string, unknown>)[field];
  if (v === null || v === undefined) return '';
  if (field === 'phone') return phoneText(String(v));
  if (field === 'cpf') return cpfText(String(v));
  if (field === 'cnpj') return cnpjText(String(v));
  return (DATE_FIELDS as readonly string[]).includes(field) ? day(String(v)) : String(v);
}

/** A calendar day (`YYYY-MM-DD`) as the chosen language writes it. */
export const day = (iso: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(iso)
    ? new Intl.DateTimeFormat(getLang(), {
        day: '2-digit',
        month: '2-digit',
        year: 'numeric',
        timeZone: 'UTC',
      }).format(new Date(`${iso}T00:00:00Z`))
    : iso;

/** The words of a tax id the service refused as invalid ("not a valid CPF"), else null. */
export const taxIdRefusal = (message: string): string | null =>
  /valid CPF/i.test(message) ? cw('badCpf') : /valid CNPJ/i.test(message) ? cw('badCnpj') : null;

/** A field's refusal (the editor's fields, an import row's reason) in the chosen language. */
export const refusalWord = (message: string) => taxIdRefusal(message) ?? fieldMessage(message);

/** A stored E.164 phone as people write it: Brazilian numbers as +55 (81) 98765-4321, others as they are. */
export const phoneText = (e164: string) => e164.replace(/^\+55(\d{2})(\d{4,5})(\d{4})$/, '+55 ($1) $2-$3');

/** A stored (bare) CPF or CNPJ with its usual mask. */
export const cpfText = (v: string) => v.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4');
export const cnpjText = (v: string) => v.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5');
