import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { htmlAsText, textAsHtml } from '../lib/html-text';

type Props = Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, 'value' | 'onInput'> & {
  /** The value as the service keeps it (sanitised HTML), or null. */
  html: string | null | undefined;
  /** What was typed, as HTML (null when empty). */
  onHtml: (html: string | null) => void;
};

/**
 * A textarea for a rich-text value (lib/html-text.ts): it shows the value's text and hands back what is typed as HTML.
 * While the value is what it last handed back, it keeps showing what was typed (no round trip under the caret); a
 * value changed from outside (a reset, another card) is shown afresh. A value never edited is never rewritten, so
 * its formatting stays.
 */
export function RichTextArea({ html, onHtml, ...attrs }: Props) {
  const [typed, setTyped] = useState<{ text: string; html: string | null } | null>(null);
  const text = typed && typed.html === (html ?? null) ? typed.text : htmlAsText(html);
  return (
    <textarea
      {...attrs}
      value={text}
      onInput={(e) => {
        const value = (e.target as HTMLTextAreaElement).value;
        const next = textAsHtml(value);
        setTyped({ text: value, html: next });
        onHtml(next);
      }}
    />
  );
}
