import { sanitizeRichText } from '../../platform/http/rich-text.js';
import { normalizePhone } from '../../platform/phones.js';
import type { FieldOption, FieldType } from '../boards/table.js';
import { parseCnpj, parseCpf } from '../contacts/index.js';

/**
 * Per-type validation of dynamic card field values (spec: FieldDefinition.type). Pure: no database.
 * Each validator normalises what it accepts (numeric strings to numbers, datetimes to UTC ISO, CPF/CNPJ
 * without mask, same rules as contacts), so what is stored and filtered on has one form per type. card_link and file values are
 * checked here for shape only; the service checks that the cards and uploads exist in the organization.
 */

export type FieldCheck = { ok: true; value: unknown } | { ok: false; message: string };

export interface FieldShape {
  type: FieldType;
  options?: FieldOption[] | null;
}

const ok = (value: unknown): FieldCheck => ({ ok: true, value });
const fail = (message: string): FieldCheck => ({ ok: false, message });

const documentIdPattern = /^[a-z0-9]{24}$/;
const emailPattern =
  /^[^\s@"<>()[\],;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;
const timePattern = /^([01]\d|2[0-3]):([0-5]\d)(:([0-5]\d))?$/;

/** Longest text each textual type keeps. */
export const TEXT_LIMITS: Partial<Record<FieldType, number>> = {
  text: 1000,
  hidden: 2000,
  textarea: 20_000,
  richtext: 200_000,
};
/** Largest monetary value numeric(14,2) holds. */
const MAX_MONEY = 999_999_999_999.99;
export const MAX_FILES_PER_FIELD = 10;
export const MAX_CARD_LINKS_PER_FIELD = 50;

export function optionValues(options: FieldOption[] | null | undefined): string[] {
  return (options ?? []).map((o) => (typeof o === 'string' ? o : o.value));
}

function text(max: number, raw: unknown): FieldCheck {
  if (typeof raw !== 'string') return fail('must be a string');
  if (raw.length > max) return fail(`must be at most ${max} characters`);
  return ok(raw);
}

function toNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(raw)) return Number(raw);
  return undefined;
}

function toBoolean(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return undefined;
}

function isCalendarDate(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

/** Accepts one documentId or a list of them; returns the deduplicated list. */
function documentIdList(raw: unknown, max: number, what: string): string[] | string {
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) return `must name at least one ${what}`;
  if (list.length > max) return `must name at most ${max} ${what}s`;
  const ids: string[] = [];
  for (const item of list) {
    const id =
      typeof item === 'object' && item !== null ? (item as { documentId?: unknown }).documentId : item;
    if (typeof id !== 'string' || !documentIdPattern.test(id)) return `must be ${what} documentIds`;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

const validators: Record<FieldType, (raw: unknown, field: FieldShape) => FieldCheck> = {
  text: (raw) => text(TEXT_LIMITS.text!, raw),
  textarea: (raw) => text(TEXT_LIMITS.textarea!, raw),
  richtext: (raw) => {
    const checked = text(TEXT_LIMITS.richtext!, raw);
    return checked.ok ? ok(sanitizeRichText(checked.value as string)) : checked;
  },
  hidden: (raw) => text(TEXT_LIMITS.hidden!, raw),
  statement: () => fail('is a statement (display text) and holds no value'),
  email: (raw) => {
    if (typeof raw !== 'string') return fail('must be a string');
    const v = raw.trim();
    return v.length <= 254 && emailPattern.test(v) ? ok(v) : fail('must be a valid email address');
  },
  url: (raw) => {
    if (typeof raw !== 'string') return fail('must be a string');
    const v = raw.trim();
    if (v.length > 2048) return fail('must be at most 2048 characters');
    try {
      const u = new URL(v);
      if ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname) return ok(v);
    } catch {
      // falls through to the failure below
    }
    return fail('must be an absolute http(s) URL');
  },
  phone: (raw) => {
    if (typeof raw !== 'string') return fail('must be a string');
    // Same rule as contacts (src/platform/phones.ts): E.164, national numbers read as Brazilian.
    const res = normalizePhone(raw);
    return res.ok ? ok(res.phone) : fail(res.message);
  },
  number: (raw) => {
    const n = toNumber(raw);
    return n === undefined ? fail('must be a number') : ok(n);
  },
  currency: (raw) => {
    const n = toNumber(raw);
    if (n === undefined) return fail('must be a monetary amount');
    if (Math.round(n * 100) / 100 !== n) return fail('must have at most 2 decimal places');
    if (Math.abs(n) > MAX_MONEY) return fail(`must be at most ${MAX_MONEY} in absolute value`);
    return ok(n);
  },
  date: (raw) => {
    const m = typeof raw === 'string' ? datePattern.exec(raw) : null;
    if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])))
      return fail('must be a date YYYY-MM-DD');
    return ok(raw);
  },
  datetime: (raw) => {
    if (typeof raw !== 'string' || !dateTimePattern.test(raw))
      return fail('must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T14:00:00Z');
    const [y, mo, d] = raw.slice(0, 10).split('-').map(Number);
    const t = new Date(raw);
    if (!isCalendarDate(y, mo, d) || Number.isNaN(t.getTime())) return fail('must be a valid date-time');
    return ok(t.toISOString());
  },
  time: (raw) =>
    typeof raw === 'string' && timePattern.test(raw) ? ok(raw) : fail('must be a time HH:mm or HH:mm:ss'),
  select: (raw, field) => oneOf(raw, field),
  radio: (raw, field) => oneOf(raw, field),
  multiselect: (raw, field) => {
    const list = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(list)) return fail('must be a list of options');
    const allowed = optionValues(field.options);
    const out: string[] = [];
    for (const v of list) {
      if (typeof v !== 'string' || !allowed.includes(v))
        return fail(`must be a list of: ${allowed.join(', ') || '(no options defined)'}`);
      if (!out.includes(v)) out.push(v);
    }
    return ok(out);
  },
  switch: (raw) => {
    const b = toBoolean(raw);
    return b === undefined ? fail('must be true or false') : ok(b);
  },
  checkbox: (raw) => {
    const b = toBoolean(raw);
    return b === undefined ? fail('must be true or false') : ok(b);
  },
  document: (raw) => {
    if (typeof raw !== 'string') return fail('must be a string');
    const bare = parseCpf(raw) ?? parseCnpj(raw);
    return bare ? ok(bare) : fail('must be a valid CPF (11 digits) or CNPJ (14 characters)');
  },
  card_link: (raw) => {
    const ids = documentIdList(raw, MAX_CARD_LINKS_PER_FIELD, 'card');
    if (typeof ids === 'string') return fail(ids);
    return ok(Array.isArray(raw) ? ids : ids[0]);
  },
  file: (raw) => {
    const ids = documentIdList(raw, MAX_FILES_PER_FIELD, 'file');
    return typeof ids === 'string' ? fail(ids) : ok(ids);
  },
};

function oneOf(raw: unknown, field: FieldShape): FieldCheck {
  const allowed = optionValues(field.options);
  return typeof raw === 'string' && allowed.includes(raw)
    ? ok(raw)
    : fail(`must be one of: ${allowed.join(', ') || '(no options defined)'}`);
}

/** Validates and normalises one value; `null` is handled by the caller (it clears the field). */
export function validateFieldValue(field: FieldShape, raw: unknown): FieldCheck {
  return validators[field.type](raw, field);
}

/**
 * Whether a stored value counts as empty for required-ness: absent, null, blank text, an empty list, or an
 * unticked checkbox (a required checkbox is a consent box that must be ticked). A switch set to false is a
 * value.
 */
export function isEmptyValue(type: FieldType, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (type === 'checkbox') return value !== true;
  return false;
}

/** Field types whose stored JSON is a number / boolean (for filtering and aggregation). */
export const NUMERIC_TYPES: readonly FieldType[] = ['number', 'currency'];
export const BOOLEAN_TYPES: readonly FieldType[] = ['switch', 'checkbox'];
