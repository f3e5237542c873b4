import { useRef, useState } from 'preact/hooks';
import { ApiError, reason } from '../api';

/** The field a refusal names (`details.errors[0].path`), if any. */
const refusedField = (err: unknown) =>
  err instanceof ApiError
    ? String((err.details?.errors as { path?: unknown[] }[] | undefined)?.[0]?.path?.[0] ?? '')
    : '';

/**
 * A submit that shows the service's refusal: busy while it runs, the error text after (`own` words a refusal
 * of a field this page knows better than the generic text). A second submit while one runs is ignored, also one
 * that comes before the busy button is drawn again (a double Enter or click).
 */
export function useSubmit(own: Record<string, string> = {}) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const running = useRef(false);
  const run = async (fn: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setError('');
    try {
      await fn();
    } catch (err) {
      setError(own[refusedField(err)] ?? reason(err));
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  return { error, setError, busy, run };
}
