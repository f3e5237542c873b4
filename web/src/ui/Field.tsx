import { type ComponentChildren, cloneElement, isValidElement, type VNode } from 'preact';
import { useId } from 'preact/hooks';
import { uw } from './words';

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
      <label for={id}>
        {label}
        {required && (
          <span class="req" title={uw('required')}>
            {' '}
            *
          </span>
        )}
      </label>
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
