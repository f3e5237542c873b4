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

// Phones: src/platform/phones.ts (libphonenumber-js), shared with contact import and phone-type card fields.
