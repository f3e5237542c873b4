import { getLang } from '../i18n';

/**
 * An area's own catalogue (web/src/words/<area>.ts: `export const ptBR = {…}; export const en: typeof ptBR = {…}`,
 * pure data) as a lookup in the chosen language, `{name}` placeholders filled. Each page area keeps its words
 * beside the others' without one shared file growing without end; the untranslated-string test reads every file
 * of web/src/words (test/web/audit.ts).
 */
export function wordsOf<T extends Record<string, string>>(catalogue: { ptBR: T; en: NoInfer<T> }) {
  return (key: keyof T, vars: Record<string, string | number> = {}): string => {
    const text = (getLang() === 'en' ? catalogue.en : catalogue.ptBR)[key] ?? String(key);
    return text.replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? ''));
  };
}
