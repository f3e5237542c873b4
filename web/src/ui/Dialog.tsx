import type { ComponentChildren } from 'preact';
import { useEffect, useId, useLayoutEffect, useRef } from 'preact/hooks';
import { uw } from './words';

interface Props {
  open: boolean;
  title: ComponentChildren;
  onClose: () => void;
  children: ComponentChildren;
  /** Buttons at the foot (the dialog's own close button is always there). */
  footer?: ComponentChildren;
  /** Full screen on a phone, wide on a desktop (editors); default a small centred box. */
  wide?: boolean;
}

/**
 * A modal dialog on the native <dialog> (focus kept inside, Escape closes, the page behind inert); focus goes back
 * to what had it when the dialog opened.
 */
export function Dialog({ open, title, onClose, children, footer, wide }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();
  // A layout effect: the dialog opens (and closes) in the same task its content renders or goes, never a frame later.
  useLayoutEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    const closed = () => {
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
      opener.current = null;
    };
    d.addEventListener('close', closed);
    return () => {
      d.removeEventListener('close', closed);
      // Most dialogs close by going (their parent stops rendering them): a dialog removed while open fires no
      // `close` event and gives no focus back. It is closed here first (the page behind is inert while it is
      // open, and an inert element takes no focus), then the focus goes back as on a close.
      if (d.open) {
        d.close();
        closed();
      }
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={`ds-dialog${wide ? ' wide' : ''}`}
      aria-labelledby={open ? titleId : undefined}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <header>
            <h2 id={titleId}>{title}</h2>
            <button type="button" class="btn btn-ghost ds-dialog-close" onClick={onClose}>
              <span aria-hidden="true">×</span>
              <span class="sr-only">{uw('close')}</span>
            </button>
          </header>
          <div class="ds-dialog-body">{children}</div>
          {footer && <footer class="ds-actions">{footer}</footer>}
        </>
      )}
    </dialog>
  );
}
