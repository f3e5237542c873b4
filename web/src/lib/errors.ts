import { getLang } from '../i18n';
import type { Words } from './catalog-words';
import { code, w } from './words';

/** What a refusal carries (api.ts's ApiError, structurally: this file is imported by api.ts). */
interface Refusal {
  name: string;
  message: string;
  details?: Record<string, unknown>;
}
/** The parts of a board (api.ts's Board) that name its phases and fields. */
interface BoardNames {
  phases: { documentId: string; name: string; fields: { slug: string; label: string }[] }[];
}

type FieldError = { path?: (string | number)[]; message?: string };

/** A field error's message as a word where it is a known kind; in English the service's own text. */
export function fieldMessage(message = ''): string {
  const known: [RegExp, keyof Words][] = [
    [/required|missing/i, 'fe_required'],
    [/e-?mail/i, 'fe_email'],
    [/taken|unique|already/i, 'fe_taken'],
    [/too big|at most|too long|maximum/i, 'fe_long'],
    [/too small|at least|too short|minimum/i, 'fe_short'],
  ];
  const hit = known.find(([re]) => re.test(message));
  if (hit) return w(hit[1]);
  return getLang() === 'en' && message ? message : w('fe_invalid');
}

/** Field slugs as the board names them (labels), else the words of common attributes, else as they are. */
const fieldLabels = (board: BoardNames | undefined, slugs: string[]) =>
  slugs.map((s) => {
    const label = board?.phases.flatMap((p) => p.fields).find((f) => f.slug === s)?.label;
    if (label) return label;
    const attr = code('at', s);
    return attr === s ? code('cf', s) : attr;
  });
const phaseName = (board: BoardNames | undefined, ref: { documentId?: string; slug?: string } | undefined) =>
  board?.phases.find((p) => p.documentId === ref?.documentId)?.name ?? ref?.slug ?? '';

/**
 * The service's refusal in the chosen language, built from what it gives as codes (the error name and its
 * details: a blocked transition's phases, missing required fields, field errors, the chat window, a plan
 * feature). The service's English sentence is shown only in English, when no code says more.
 */
export function localError(err: Refusal, board?: BoardNames): string {
  const d = (err.details ?? {}) as Record<string, any>;
  if (d.from?.documentId && d.to?.documentId)
    return w('err_transition', { from: phaseName(board, d.from), to: phaseName(board, d.to) });
  if (Array.isArray(d.missingFields))
    return w('err_required_short', { fields: fieldLabels(board, d.missingFields).join(', ') });
  if (d.window) return w('err_window');
  if (d.consent?.status === 'withdrawn') return w('err_consent_withdrawn');
  if (typeof d.feature === 'string') return w('err_feature', { feature: d.feature });
  if (Array.isArray(d.errors) && d.errors.length) {
    const items = (d.errors as FieldError[]).slice(0, 3).map((e) => {
      const path = (e.path ?? []).map(String);
      const [label] = fieldLabels(board, [path.at(-1) ?? '']);
      return label ? `${label}: ${fieldMessage(e.message)}` : fieldMessage(e.message);
    });
    return w('err_fields', { fields: items.join('; ') });
  }
  if (getLang() === 'en') return err.message;
  const key = `err_${err.name}` as keyof Words;
  return w(key) === key ? err.message : w(key);
}
