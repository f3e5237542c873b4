import { useEffect, useState } from 'preact/hooks';
import { uw } from './words';

export type ToastKind = 'success' | 'error' | 'info';
interface Toast {
  id: number;
  text: string;
  kind: ToastKind;
}

let next = 1;
let toasts: Toast[] = [];
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/** Shows a short notice (successes fade after 5 s; errors stay until dismissed). Announced by the live region. */
export function toast(text: string, kind: ToastKind = 'success') {
  const t = { id: next++, text, kind };
  toasts = [...toasts, t].slice(-4);
  emit();
  if (kind !== 'error') setTimeout(() => dismiss(t.id), 5000);
}

function dismiss(id: number) {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

/** The notices' region, once in the shell, above every drawer and dialog. */
export function Toasts() {
  const [, set] = useState(0);
  useEffect(() => {
    const l = () => set((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return (
    <section class="ds-toasts" aria-label={uw('notifications')}>
      <div role="status" aria-live="polite">
        {toasts
          .filter((t) => t.kind !== 'error')
          .map((t) => (
            <ToastView key={t.id} t={t} />
          ))}
      </div>
      <div role="alert" aria-live="assertive">
        {toasts
          .filter((t) => t.kind === 'error')
          .map((t) => (
            <ToastView key={t.id} t={t} />
          ))}
      </div>
    </section>
  );
}

function ToastView({ t }: { t: Toast }) {
  return (
    <p class={`ds-toast ${t.kind}`}>
      <span>{t.text}</span>
      <button type="button" class="btn btn-ghost" onClick={() => dismiss(t.id)}>
        <span aria-hidden="true">×</span>
        <span class="sr-only">{uw('dismiss')}</span>
      </button>
    </p>
  );
}
