import { type CountryCode, getCountries, parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * Phone numbers, one rule for contacts, contact import and phone-type card fields (docs/contacts.md, Phones):
 * parsed by libphonenumber-js (Google's libphonenumber metadata) and stored in E.164 (`+5511987654321`).
 * A number written nationally is read in the default country: the contact's `country` (ISO code or its name in
 * English or Portuguese: `BR`, `Brasil`, `Brazil`, `PT`, `Portugal`…) or Brazil when there is none or it is not a
 * country we know; `+…` and `00…` are international whatever the country. The default (`min`) metadata checks
 * a number's length for its country and area code, not the number-type patterns, so historic 8-digit mobiles
 * such as `(11) 8765-4321` keep being accepted.
 */

export const DEFAULT_PHONE_COUNTRY: CountryCode = 'BR';

/** The form a phone number is expected in, for error messages. */
export const PHONE_FORM =
  'a phone number with area code, e.g. (11) 98765-4321, or in international form, e.g. +55 11 98765-4321';

export type PhoneResult = { ok: true; phone: string } | { ok: false; message: string };

const COUNTRIES = new Set<string>(getCountries());

/** Country names (English, Portuguese) and a few aliases → ISO 3166-1 alpha-2, built once from Intl. */
const byName = (() => {
  const map = new Map<string, CountryCode>([
    ['bra', 'BR'],
    ['brasil', 'BR'],
    ['usa', 'US'],
    ['eua', 'US'],
    ['uk', 'GB'],
  ]);
  const fold = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
  for (const locale of ['en', 'pt-BR', 'pt-PT']) {
    const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' });
    for (const code of COUNTRIES) {
      const name = names.of(code);
      if (name && !map.has(fold(name))) map.set(fold(name), code as CountryCode);
    }
  }
  return { map, fold };
})();

/** The country a nationally written number is read in: the given country when known, else Brazil. */
export function phoneCountry(country: string | null | undefined): CountryCode {
  const c = country?.trim();
  if (!c) return DEFAULT_PHONE_COUNTRY;
  if (COUNTRIES.has(c.toUpperCase())) return c.toUpperCase() as CountryCode;
  return byName.map.get(byName.fold(c)) ?? DEFAULT_PHONE_COUNTRY;
}

/** Parses and validates a phone number; E.164 on success, a message naming the expected form otherwise. */
export function normalizePhone(input: string, country?: string | null): PhoneResult {
  const raw = input.trim();
  if (raw.length > 40 || !/^[+\d\s().\-/]+$/.test(raw))
    return { ok: false, message: `must be ${PHONE_FORM} (digits, +, spaces and ()-. only)` };
  // `00` is the international prefix in Brazil and most of Europe: `00351 …` is +351 ….
  const text = raw.startsWith('00') ? `+${raw.slice(2)}` : raw;
  const defaultCountry = phoneCountry(country);
  const parsed = parsePhoneNumberFromString(text, { defaultCountry, extract: false });
  if (!parsed?.isValid())
    return {
      ok: false,
      message: `must be ${PHONE_FORM}; not a valid number${text.startsWith('+') ? '' : ` in ${defaultCountry}`}`,
    };
  return { ok: true, phone: parsed.number };
}
