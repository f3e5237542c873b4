import { type ComponentChildren, cloneElement, isValidElement, type VNode } from 'preact';
import { useId } from 'preact/hooks';

interface Props {
  label: ComponentChildren;
  /** The control: an input, select or textarea element (it gets the id, aria-invalid and aria-describedby). */
  children: VNode;
  /** The field's inline error (the API's message for this field, in the chosen language). */
  error?: string | null;
  hint?: ComponentChildren;
  required?: boolean;
  class?: string;
}

/** A labelled control with its hint and inline error, wired for screen readers. */
export function Field({ label, children, error, hint, required, class: cls }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const control = isValidElement(children)
    ? cloneElement(children, {
        id,
        required: required || undefined,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy,
      } as Record<string, unknown>)
    : children;
  return (
    <div class={`ds-field${error ? ' has-error' : ''}${cls ? ` ${cls}` : ''}`}>
      <span class="ds-label">
        <label for={id}>{label}</label>
        {/* Outside the label: the control's `required` tells a screen reader; the star is for the eye only. */}
        {required && (
          <span class="req" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </span>
      {control}
      {hint && (
        <span id={hintId} class="ds-hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={errorId} class="ds-error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
