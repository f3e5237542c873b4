import { date, dateTime } from '../i18n';
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
    case 'call_completed':
    case 'call_attempted':
      return `${w(`ev_${a.activityType}`)}: ${a.description}`;
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
