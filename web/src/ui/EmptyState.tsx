import type { ComponentChildren } from 'preact';
import { uw } from './words';

/** What a list shows when it has nothing: a sentence and, where the person can, the action that starts it. */
export function EmptyState({ text, action }: { text?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="ds-empty">
      <p>{text ?? uw('nothingYet')}</p>
      {action}
    </div>
  );
}
