import type { ComponentChildren, JSX } from 'preact';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost';

type Props = Omit<JSX.ButtonHTMLAttributes<HTMLButtonElement>, 'type'> & {
  variant?: ButtonVariant;
  /** A submit button of its form (default: a plain button). */
  submit?: boolean;
  /** Busy: disabled and marked aria-busy while its action runs. */
  busy?: boolean;
  disabled?: boolean;
  children: ComponentChildren;
};

/** The one button of the app: its variant sets the colours (tokens in styles.css, `.btn-*`). */
export function Button({
  variant = 'primary',
  submit,
  busy,
  disabled,
  class: cls,
  children,
  ...rest
}: Props) {
  return (
    <button
      {...rest}
      type={submit ? 'submit' : 'button'}
      class={`btn btn-${variant}${cls ? ` ${cls}` : ''}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {children}
    </button>
  );
}
