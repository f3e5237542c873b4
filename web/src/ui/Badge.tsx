import type { ComponentChildren } from 'preact';

export type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

/** A short status word (its tone gives the colour; every tone keeps 4.5:1 contrast). */
export function Badge({ tone = 'neutral', children }: { tone?: Tone; children: ComponentChildren }) {
  return <span class={`ds-badge tone-${tone}`}>{children}</span>;
}
