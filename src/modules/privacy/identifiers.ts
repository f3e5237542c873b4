/**
 * What identifies a person in free text (docs/lgpd.md, "Erasure"): the contact's name, e-mail, phone, CPF and
 * CNPJ turned into one PostgreSQL regular expression (ARE, matched case-insensitively) that finds every copy of
 * them in any text: the name as written, lower- or upper-cased and without accents (the search copies fold it);
 * the phone and the documents whatever their punctuation (`+55 (11) 98765-4321`, `5511987654321`,
 * `11987654321`; `529.982.247-25`, `52998224725`); and the e-mail and phone as the Conversions API receives them
 * (SHA-256 of the normalised value, kept in the pixels' event log): a hash anyone holding the address can
 * recompute identifies the person as well as the address does.
 */
import { hashEmail, hashPhone } from '../../platform/providers/conversions/client.js';

export interface PersonIdentifiers {
  name: string | null;
  email: string | null;
  phone: string | null;
  cpf: string | null;
  cnpj: string | null;
}

/** ARE metacharacters escaped: the value matches literally. */
const literal = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** Digits with any punctuation or spaces between them. */
const digitsPattern = (digits: string) => digits.split('').join('[\\s().\\-/]*');

/** The name in every casing and accent form a copy may hold; none for an empty name. */
function nameAlternatives(name: string | null): string[] {
  const n = name?.trim().replace(/\s+/g, ' ');
  if (!n || n.length < 3) return [];
  const forms = new Set([n, n.toLowerCase(), n.toUpperCase(), fold(n), fold(n).toUpperCase()]);
  return [...forms].map((f) => literal(f).replace(/ /g, '\\s+'));
}

/** A phone's national part (Brazil's +55 dropped) with an optional country code before it. */
function phoneAlternative(phone: string | null): string | null {
  const digits = phone?.replace(/\D/g, '') ?? '';
  if (digits.length < 8) return null;
  const national = digits.startsWith('55') && digits.length >= 12 ? digits.slice(2) : digits;
  const country = national === digits ? '' : '(\\+?\\s*55[\\s().\\-/]*)?';
  return `${country}${digitsPattern(national)}`;
}

function documentAlternative(value: string | null): string | null {
  const digits = value?.replace(/\D/g, '') ?? '';
  return digits.length >= 11 ? digitsPattern(digits) : null;
}

/** The SHA-256 forms of the e-mail and phone that the Conversions API events carry (hex: literal in a pattern). */
function hashedAlternatives(p: PersonIdentifiers): string[] {
  const out: string[] = [];
  if (p.email?.trim()) out.push(hashEmail(p.email));
  const phone = p.phone?.trim() ? hashPhone(p.phone) : undefined;
  if (phone) out.push(phone);
  return out;
}

/**
 * The pattern of every identifier of the person; null when there is none (a nameless contact with no address).
 * `withName: false` leaves the name out (a one-word name would match unrelated text: only the person's own rows
 * are scrubbed of it).
 */
export function identifierPattern(p: PersonIdentifiers, opts: { withName: boolean }): string | null {
  const parts = [
    ...(opts.withName ? nameAlternatives(p.name) : []),
    p.email?.trim() ? literal(p.email.trim()) : null,
    phoneAlternative(p.phone),
    documentAlternative(p.cpf),
    documentAlternative(p.cnpj),
    ...hashedAlternatives(p),
  ].filter((x): x is string => !!x);
  return parts.length ? `(${parts.join('|')})` : null;
}

/** A name specific enough to be looked for in rows that are not the person's own: at least two words. */
export const nameIsDistinctive = (name: string | null) =>
  (name
    ?.trim()
    .split(/\s+/)
    .filter((w) => w.length >= 2).length ?? 0) >= 2;

/** The addresses a suppression of the person may hold (campaigns: lower-case e-mail, `+digits` phone). */
export function suppressionAddresses(p: PersonIdentifiers): string[] {
  const out: string[] = [];
  if (p.email?.trim()) out.push(p.email.trim().toLowerCase());
  const digits = p.phone?.replace(/\D/g, '') ?? '';
  if (digits) out.push(`+${digits}`);
  return out;
}
