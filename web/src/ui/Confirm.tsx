import { useEffect, useState } from 'preact/hooks';
import { Button } from './Button';
import { Dialog } from './Dialog';
import { uw } from './words';

interface Ask {
  title: string;
  text?: string;
  /** The confirming button's words (default "Confirmar"); `danger` paints it red (deleting, revoking). */
  confirmLabel?: string;
  danger?: boolean;
  resolve: (ok: boolean) => void;
}

let current: Ask | null = null;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/**
 * Asks the person to confirm an action in the app's own dialog, in the chosen language (the browser's
 * `window.confirm` shows its buttons in the browser's language and cannot be styled). Resolves true on confirm.
 */
export function confirmAction(ask: Omit<Ask, 'resolve'>): Promise<boolean> {
  current?.resolve(false);
  return new Promise((resolve) => {
    current = { ...ask, resolve };
    emit();
  });
}

function answer(ok: boolean) {
  const ask = current;
  current = null;
  emit();
  ask?.resolve(ok);
}

/** Where confirmAction's dialog renders: once, in the shell. */
export function ConfirmHost() {
  const [, set] = useState(0);
  useEffect(() => {
    const l = () => set((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  const ask = current;
  return (
    <Dialog
      open={!!ask}
      title={ask?.title ?? ''}
      onClose={() => answer(false)}
      footer={
        <>
          <Button variant="secondary" onClick={() => answer(false)}>
            {uw('cancel')}
          </Button>
          <Button
            variant={ask?.danger ? 'danger' : 'primary'}
            onClick={() => answer(true)}
            data-testid="confirm-yes"
          >
            {ask?.confirmLabel ?? uw('confirm')}
          </Button>
        </>
      }
    >
      {ask?.text && <p>{ask.text}</p>}
    </Dialog>
  );
}
