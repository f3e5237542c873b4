import { date, dateTime, getLang } from '../i18n';
import * as calls from '../words/calls';
import { wordsOf } from './area-words';
import type { Words } from './catalog-words';
import { code, list, num, w } from './words';

type Meta = Record<string, any> | null | undefined;
const has = (key: string): key is keyof Words =>
  ['h_', 'ev_'].some((p) => key.startsWith(p)) && w(key as keyof Words) !== key;

/**
 * A card's history entry (a system comment) as a sentence in the chosen language, from its `activityType` and
 * `metadata` (the service's `content` is English); an event this app does not know keeps the service's text.
 */
export function historySentence(
  e: { activityType?: string | null; metadata?: Meta; content: string },
  tagName: (slug: string) => string = (s) => s,
): string {
  const m = e.metadata ?? {};
  switch (e.activityType) {
    case 'phase_changed':
      return w('h_phase_changed', { from: m.from?.name ?? '—', to: m.to?.name ?? '—' });
    case 'title_changed':
      return w('h_title_changed', { to: m.to ?? '' });
    case 'value_changed':
      return w('h_value_changed', { from: num(Number(m.from ?? 0)), to: num(Number(m.to ?? 0)) });
    case 'due_date_changed':
      return m.to ? w('h_due_date_changed', { to: date(m.to) }) : w('h_due_date_removed');
    case 'contact_changed':
      return w(m.to ? 'h_contact_changed' : 'h_contact_removed');
    case 'field_changed':
      return w(m.to === null ? 'h_field_cleared' : 'h_field_changed', { field: m.field?.label ?? '' });
    case 'tag_added':
    case 'tag_removed':
      return w(`h_${e.activityType}`, { tag: tagName(m.tag?.slug ?? '') });
    case 'meeting_scheduled':
    case 'meeting_updated':
    case 'meeting_cancelled':
      return m.meeting
        ? w(`h_${e.activityType}`, { title: m.meeting.title ?? '', when: dateTime(m.meeting.start) })
        : e.content;
  }
  const key = `h_${e.activityType}`;
  return has(key) ? w(key) : e.content;
}

/** A contact's timeline entry as a sentence; notes and calls keep what the person wrote. */
export function timelineSentence(a: { activityType: string; metadata?: Meta; description: string }): string {
  const m = a.metadata ?? {};
  switch (a.activityType) {
    case 'note_added':
      return `${w('ev_note_added')}: ${a.description}`;
    case 'call_completed':
    case 'call_attempted':
      return callSentence(a.activityType, m, a.description);
    case 'contact_updated':
      return Array.isArray(m.fields) && m.fields.length
        ? w('ev_contact_updated_fields', { fields: list(m.fields.map((f: string) => code('cf', f))) })
        : w('ev_contact_updated');
    case 'card_created':
    case 'card_won':
    case 'card_lost':
      return w(`ev_${a.activityType}`, { title: m.card?.title ?? '', board: m.board?.name ?? '' });
  }
  const key = `ev_${a.activityType}`;
  return has(key) ? w(key) : a.description;
}

/** The calls' words (web/src/words/calls.ts). */
const kw = wordsOf(calls);
type CallKey = keyof typeof calls.ptBR;

export type CallType = 'call_completed' | 'call_attempted';
export const CALL_DIRECTIONS = ['outbound', 'inbound'] as const;
export const CALL_OUTCOMES = ['no_answer', 'busy', 'voicemail', 'wrong_number'] as const;

/** Seconds as the chosen language says a duration ("4 minutos e 5 segundos", "1 hour and 2 minutes"). */
function durationText(total: number): string {
  const unit = (n: number, u: string) =>
    new Intl.NumberFormat(getLang(), { style: 'unit', unit: u, unitDisplay: 'long' }).format(n);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const parts = [h ? unit(h, 'hour') : '', m ? unit(m, 'minute') : '', s ? unit(s, 'second') : ''];
  return total > 0 ? list(parts.filter(Boolean)) : unit(0, 'second');
}

/**
 * A call of the timeline in words: who called and whether it was answered (metadata.direction), the duration
 * (metadata.durationSeconds) or the reason no one answered (metadata.outcome), then what the person wrote. A call
 * logged without them (through the API) keeps the plain "Ligação feita: …".
 */
function callSentence(type: CallType, m: Record<string, any>, description: string): string {
  const head = (CALL_DIRECTIONS as readonly unknown[]).includes(m.direction)
    ? kw(`tl_${type}_${m.direction}` as CallKey)
    : w(`ev_${type}`);
  const seconds = Number(m.durationSeconds);
  const detail =
    type === 'call_completed' && Number.isInteger(seconds) && seconds >= 0
      ? durationText(seconds)
      : type === 'call_attempted' && (CALL_OUTCOMES as readonly unknown[]).includes(m.outcome)
        ? kw(`outcome_${m.outcome}` as CallKey)
        : '';
  return `${head}${detail ? ` (${detail})` : ''}: ${description}`;
}
