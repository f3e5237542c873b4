/**
 * Brazilian tax ids and contact normalisation (docs/contacts.md). CPF: 11 digits. CNPJ: 14 characters,
 * the first 12 digits or (since July 2026) uppercase letters, the last 2 check digits. Input may carry
 * the usual mask (dots, dash, slash, spaces); the stored value is bare.
 */

const MASK = /[.\-/\s]/g;

function checkDigit(values: number[], weights: number[]): number {
  const sum = values.reduce((acc, v, i) => acc + v * weights[i], 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** The bare CPF, or null when the input is not a valid CPF. */
export function parseCpf(input: string): string | null {
  const bare = input.trim().replace(MASK, '');
  if (!/^\d{11}$/.test(bare) || /^(\d)\1{10}$/.test(bare)) return null;
  const digits = [...bare].map(Number);
  const d1 = checkDigit(digits.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = checkDigit(digits.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d1 === digits[9] && d2 === digits[10] ? bare : null;
}

/** The bare CNPJ (letters uppercased), or null when the input is not a valid CNPJ. */
export function parseCnpj(input: string): string | null {
  const bare = input.trim().replace(MASK, '').toUpperCase();
  if (!/^[0-9A-Z]{12}\d{2}$/.test(bare) || /^(\d)\1{13}$/.test(bare)) return null;
  // Alphanumeric CNPJ: each character counts as its ASCII code minus 48 (digits keep their value).
  const values = [...bare].map((c) => c.charCodeAt(0) - 48);
  const d1 = checkDigit(values.slice(0, 12), [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = checkDigit(values.slice(0, 13), [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return d1 === values[12] && d2 === values[13] ? bare : null;
}

const BRAZIL = new Set(['br', 'bra', 'brasil', 'brazil']);

export function isBrazil(country: string | null | undefined): boolean {
  return !!country && BRAZIL.has(country.trim().toLowerCase());
}

export type PhoneResult = { ok: true; phone: string } | { ok: false; message: string };

/**
 * E.164 when the country is known: a leading `+` (international form), or a Brazilian contact
 * (country BR/Brasil/Brazil) written nationally (DDD + number, optional trunk 0 / carrier code).
 * Otherwise the number is kept as sent (trimmed, inner whitespace collapsed).
 */
export function normalizePhone(input: string, country: string | null | undefined): PhoneResult {
  const raw = input.trim().replace(/\s+/g, ' ');
  if (!/^[+\d\s().-]+$/.test(raw))
    return { ok: false, message: 'a phone number has only digits, +, spaces, ()-.' };
  let digits = raw.replace(/\D/g, '');
  if (raw.startsWith('+') || raw.startsWith('00')) {
    if (raw.startsWith('00')) digits = digits.slice(2);
    if (digits.length < 8 || digits.length > 15 || digits.startsWith('0'))
      return { ok: false, message: 'an international number has 8 to 15 digits after the country code +' };
    return { ok: true, phone: `+${digits}` };
  }
  if (isBrazil(country)) {
    if (/^0\d{2}\d{10,11}$/.test(digits))
      digits = digits.slice(3); // 0 + carrier code + DDD + number
    else if (/^0\d{10,11}$/.test(digits))
      digits = digits.slice(1); // trunk 0 + DDD + number
    else if (/^55\d{10,11}$/.test(digits)) digits = digits.slice(2);
    if (!/^[1-9][1-9]\d{8,9}$/.test(digits))
      return { ok: false, message: 'a Brazilian number is DDD + 8 or 9 digits, e.g. (11) 98765-4321' };
    return { ok: true, phone: `+55${digits}` };
  }
  if (digits.length < 3) return { ok: false, message: 'a phone number needs at least 3 digits' };
  return { ok: true, phone: raw };
}
