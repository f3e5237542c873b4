import { getLang } from '../i18n';
import { type Words, wordsEn, wordsPtBR } from './catalog-words';

/** A word or sentence of catalog-words.ts in the chosen language, `{name}` placeholders filled. */
export function w(key: keyof Words, vars: Record<string, string | number> = {}): string {
  const text = (getLang() === 'en' ? wordsEn : wordsPtBR)[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? ''));
}

/** A code of the service as a word (`task_pending`, `prio_high`…); an unknown code stays as it is. */
export function code(prefix: string, value: string | null | undefined): string {
  if (!value) return '';
  const key = `${prefix}_${value}` as keyof Words;
  return key in wordsPtBR ? w(key) : value;
}

/** Integers and decimals in the chosen locale (20.000 in pt-BR, 20,000 in English). */
export const num = (n: number) => new Intl.NumberFormat(getLang()).format(n);

/** A share as a whole percentage in the chosen locale (0.5 → 50%, "50 %" where the language spaces it). */
export const percent = (share: number) =>
  new Intl.NumberFormat(getLang(), { style: 'percent', maximumFractionDigits: 0 }).format(share);

/** Short axis labels (3,5 mi / 3.5M). */
export const compact = (n: number) => new Intl.NumberFormat(getLang(), { notation: 'compact' }).format(n);

/** A count with its word in the right plural form ("1 atrasado", "2 atrasados"). */
export const counted = (n: number, one: keyof Words, many: keyof Words) =>
  `${num(n)} ${plural(n, one, many)}`;

/** Of a count's two words (or their keys, in any catalogue), the one in the plural form the chosen language asks for. */
export const pluralOf = <K extends string>(n: number, one: K, many: K): K =>
  new Intl.PluralRules(getLang()).select(n) === 'one' ? one : many;

/** The word of a count in the plural form the chosen language asks for. */
export const plural = (n: number, one: keyof Words, many: keyof Words) => w(pluralOf(n, one, many));

/** The first letter in upper case (a word used as a label). */
export const upperFirst = (s: string) => s.charAt(0).toLocaleUpperCase(getLang()) + s.slice(1);

/** A list of words in the chosen language ("a, b e c" / "a, b, and c"). */
export const list = (items: string[]) =>
  new Intl.ListFormat(getLang(), { style: 'long', type: 'conjunction' }).format(items);
