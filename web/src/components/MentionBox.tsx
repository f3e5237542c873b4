import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { wordsOf } from '../lib/area-words';
import type { Member } from '../lib/directory';
import { personName } from '../lib/people';
import * as catalogue from '../words/mentions';

const mw = wordsOf(catalogue);

/** A member mentioned while writing: the name written after "@" in the text, and the membership sent in `mentions`. */
export interface Mention {
  documentId: string;
  name: string;
}

/** Letters, digits and the marks of a username after an "@" that starts the text or follows a space: what is typed. */
const TYPED = /(?:^|[\s(])@([\p{L}\p{N}][\p{L}\p{M}\p{N}._-]*)$/u;
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();

/** Members whose display name has a word, or whose username, starts with what was typed (accents ignored). */
function matching(members: Member[], typed: string): Member[] {
  const q = fold(typed);
  return members
    .filter((m) =>
      [...fold(personName(m)).split(/\s+/), fold(m.user.username), fold(personName(m))].some((w) =>
        w.startsWith(q),
      ),
    )
    .slice(0, 8);
}

/**
 * The mentions a text still holds when it is sent: a picked member whose "@Name" was deleted from the text is not
 * mentioned (each member once).
 */
export function mentionsIn(text: string, picked: Mention[]): string[] {
  const written = writtenNames(
    text,
    picked.map((m) => m.name),
  );
  return [...new Set(picked.filter((m) => written.has(m.name)).map((m) => m.documentId))];
}

const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** "@Name" not followed by a letter or digit ("@Ana" is not in "@Anabela"). */
const mentionPattern = (names: string[], flags = 'u') =>
  new RegExp(`(${names.map((n) => `@${escaped(n)}`).join('|')})(?![\\p{L}\\p{M}\\p{N}])`, flags);

/**
 * The names a text writes as "@Name", the longer ones first: "@Ana Paula" is Ana Paula's, and is no mention of an
 * "Ana" unless "@Ana" is also written elsewhere.
 */
function writtenNames(text: string, names: string[]): Set<string> {
  const found = new Set<string>();
  let rest = text;
  for (const name of [...new Set(names)].sort((a, b) => b.length - a.length)) {
    if (!mentionPattern([name]).test(rest)) continue;
    found.add(name);
    rest = rest.replace(mentionPattern([name], 'gu'), ' ');
  }
  return found;
}

/**
 * A comment's text with its mentions marked: each mentioned member's "@Name" (names from the organization's
 * members); a mention the text does not write out (a comment made through the API) is listed after it.
 */
export function MentionText({
  content,
  mentions,
  members,
}: {
  content: string;
  mentions: string[];
  members: Member[];
}) {
  const names = mentions
    .map((id) => members.find((m) => m.documentId === id))
    .filter((m): m is Member => !!m)
    .map((m) => personName(m));
  const mentioned = writtenNames(content, names);
  const written = names.filter((n) => mentioned.has(n)).sort((a, b) => b.length - a.length);
  const apart = names.filter((n) => !written.includes(n));
  const parts = written.length ? content.split(mentionPattern(written)) : [content];
  return (
    <>
      <p>
        {parts.map((part, i) =>
          i % 2 === 1 ? (
            <mark key={i} class="mention">
              {part}
            </mark>
          ) : (
            part
          ),
        )}
      </p>
      {apart.length > 0 && <p class="muted small">{mw('mentionedAlso', { names: apart.join(', ') })}</p>}
    </>
  );
}

/**
 * The comment box with mentions: "@" and the start of a name offers the organization's members in a listbox under
 * the text (arrows move, Enter or a click mentions, Escape closes it, leaving the drawer open). The textarea keeps
 * its textbox role (HTML allows no other on a textarea) and carries the combobox pattern's aria-autocomplete,
 * aria-controls and aria-activedescendant; a polite status says how many members were found. As the control of a
 * design-system Field (a comment edited), it takes the Field's id, aria-invalid and aria-describedby (its error).
 */
export function MentionBox({
  id,
  name,
  value,
  members,
  onText,
  onMention,
  'aria-invalid': invalid,
  'aria-describedby': describedBy,
}: {
  id?: string;
  name: string;
  value: string;
  members: Member[];
  onText: (text: string) => void;
  onMention: (m: Mention) => void;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const uid = useId();
  const listId = `${uid}-mentions`;
  const hintId = `${uid}-hint`;
  const area = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [focused, setFocused] = useState(false);
  const [active, setActive] = useState(0);
  // Escape closes the list for the "@" it was opened at; a new "@" opens it again.
  const [closedAt, setClosedAt] = useState(-1);
  const [status, setStatus] = useState('');

  const typed = TYPED.exec(value.slice(0, caret));
  const at = typed ? caret - typed[1].length - 1 : -1;
  const options = typed ? matching(members, typed[1]) : [];
  const open = focused && at >= 0 && at !== closedAt && options.length > 0;
  const current = Math.min(active, options.length - 1);
  const optionId = (i: number) => `${listId}-${i}`;

  useEffect(() => {
    setActive(0);
    // Once that "@" is gone (sent, deleted, the caret elsewhere), a new "@" in its place opens the list again.
    if (at < 0) setClosedAt(-1);
  }, [at, typed?.[1]]);
  useEffect(() => {
    if (open)
      setStatus(options.length === 1 ? mw('oneSuggestion') : mw('suggestions', { count: options.length }));
  }, [open, options.length]);

  const readCaret = () => setCaret(area.current?.selectionStart ?? 0);
  const pick = (m: Member) => {
    const shown = personName(m);
    const before = value.slice(0, at);
    const after = value.slice(caret).replace(/^\s*/, ' ');
    const next = `${before}@${shown}${after}`;
    const end = before.length + shown.length + 2;
    // The text and the caret (after the mention, where the person goes on typing) set at once, before the next key:
    // the render that follows finds the same value and leaves the caret alone.
    if (area.current) {
      area.current.value = next;
      area.current.setSelectionRange(end, end);
    }
    setCaret(end);
    onText(next);
    onMention({ documentId: m.documentId, name: shown });
    setStatus(mw('mentionAdded', { name: shown }));
  };
  const keyDown = (e: KeyboardEvent) => {
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((current + step + options.length) % options.length);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      pick(options[current]);
    } else if (e.key === 'Escape') {
      // Handled: the drawer's own Escape (it closes the drawer) leaves a prevented event alone.
      e.preventDefault();
      setClosedAt(at);
      setStatus('');
    }
  };

  return (
    <div class="mention-box">
      <textarea
        ref={area}
        id={id}
        name={name}
        required
        rows={2}
        value={value}
        aria-describedby={describedBy ? `${hintId} ${describedBy}` : hintId}
        aria-invalid={invalid}
        aria-autocomplete="list"
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open ? optionId(current) : undefined}
        onInput={(e) => {
          onText((e.target as HTMLTextAreaElement).value);
          readCaret();
        }}
        onKeyDown={keyDown}
        onKeyUp={(e) => !['ArrowDown', 'ArrowUp', 'Enter', 'Escape'].includes(e.key) && readCaret()}
        onClick={readCaret}
        onFocus={() => {
          setFocused(true);
          readCaret();
        }}
        onBlur={() => setFocused(false)}
      />
      {open && (
        <div id={listId} role="listbox" class="mention-list" aria-label={mw('membersToMention')}>
          {options.map((m, i) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard chooses from the textarea (aria-activedescendant)
            // biome-ignore lint/a11y/useFocusableInteractive: an aria-activedescendant option is never focused, the textarea keeps the focus
            <div
              key={m.documentId}
              id={optionId(i)}
              role="option"
              aria-selected={i === current}
              data-membership-id={m.documentId}
              // The textarea keeps the focus (and the caret) while the pointer chooses.
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => pick(m)}
            >
              {personName(m)} <span class="mention-user">@{m.user.username}</span>
            </div>
          ))}
        </div>
      )}
      <span id={hintId} class="ds-hint">
        {mw('mentionHint')}
      </span>
      <span class="sr-only" aria-live="polite">
        {status}
      </span>
    </div>
  );
}
