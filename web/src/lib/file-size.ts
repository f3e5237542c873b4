import { getLang } from '../i18n';

/** A size in the chosen language's numbers: 980 byte, 12,5 kB, 3,2 MB (the inbox's attachments, a card's files). */
export function fileSize(bytes: number): string {
  const [value, unit] =
    bytes >= 1024 * 1024
      ? [bytes / 1024 / 1024, 'megabyte']
      : bytes >= 1024
        ? [bytes / 1024, 'kilobyte']
        : [bytes, 'byte'];
  return new Intl.NumberFormat(getLang(), { style: 'unit', unit, maximumFractionDigits: 1 }).format(value);
}
