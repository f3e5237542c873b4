import type { JSX } from 'preact';
import { useId, useRef, useState } from 'preact/hooks';
import { t } from '../i18n';
import { htmlAsText, textAsHtml } from '../lib/html-text';

type Props = Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onInput'> & {
  /** The value as the service keeps it (sanitised HTML), or null. */
  html: string | null | undefined;
  /** What was typed, as HTML (null when empty). */
  onHtml: (html: string | null) => void;
};

/** Formatting a textarea cannot show (anything but paragraphs and line breaks): lost once the text is changed. */
const formatted = (html: string | null) => !!html && /<(?!\/?(?:p|br)\b)[a-z]/i.test(html);

/**
 * A textarea for a rich-text value (lib/html-text.ts): it shows the value's text and hands back what is typed as HTML.
 * While the value is what it last handed back, it keeps showing what was typed (no round trip under the caret); a
 * value changed from outside (a reset, another card) is shown afresh. A value never edited is never rewritten, and
 * a text brought back to what it was hands back the value as it came, its formatting kept; a value with formatting
 * says under the box that a changed text is saved without it.
 */
export function RichTextArea({ html, onHtml, ...attrs }: Props) {
  const hintId = `${useId()}-rich`;
  const [typed, setTyped] = useState<{ text: string; html: string | null } | null>(null);
  const ours = !!typed && typed.html === (html ?? null);
  // The value as it came from outside (not one typed here).
  const base = useRef<string | null>(html ?? null);
  if (!ours) base.current = html ?? null;
  const text = ours ? typed.text : htmlAsText(html);
  const hint = formatted(base.current);
  const describedBy = [attrs['aria-describedby'], hint ? hintId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <textarea
        {...attrs}
        aria-describedby={describedBy}
        value={text}
        onInput={(e) => {
          const value = (e.target as HTMLTextAreaElement).value;
          const next = value === htmlAsText(base.current) ? base.current : textAsHtml(value);
          setTyped({ text: value, html: next });
          onHtml(next);
        }}
      />
      {hint && (
        <span id={hintId} class="ds-hint">
          {t('richTextHint')}
        </span>
      )}
    </>
  );
}
