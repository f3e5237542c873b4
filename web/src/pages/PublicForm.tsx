import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, client, type Field, reason, unwrap } from '../api';
import { FieldInput } from '../components/FieldInput';
import { type Condition, hiddenSlugs } from '../conditions';
import { getLang, t } from '../i18n';
import { uploadBoardFile } from '../lib/board-files';
import { Button } from '../ui';

interface FormDef {
  board: { documentId: string; name: string };
  phase: { name: string; description: string | null };
  /** The organization's consent checkbox, its text shown as written (its words are the organization's). */
  consent: { text: string } | null;
  fields: Field[];
  conditions: Condition[];
}
const TRACKING = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'gclid',
  'fbclid',
] as const;

/** The public entry form of a board (no sign-in): inputs named by field slug, uploads, UTM and click ids kept. */
export function PublicFormPage({ boardId }: { boardId: string }) {
  const [def, setDef] = useState<FormDef | null>(null);
  const [missing, setMissing] = useState(false);
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [error, setError] = useState('');
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [consent, setConsent] = useState(false);
  const tracking = useMemo(() => {
    const params = new URLSearchParams(location.search);
    return Object.fromEntries(
      TRACKING.flatMap((k) => (params.get(k) ? [[k, params.get(k)!.slice(0, 500)]] : [])),
    );
  }, []);
  useEffect(() => {
    unwrap(client.GET('/api/boards/{boardId}/public-form', { params: { path: { boardId } } }))
      .then((d) => {
        const form = d as unknown as FormDef;
        setDef(form);
        const defaults: Record<string, unknown> = {};
        for (const f of form.fields) if (f.defaultValue != null) defaults[f.slug] = f.defaultValue;
        setValues(defaults);
      })
      .catch((err) =>
        err instanceof ApiError && err.status === 404 ? setMissing(true) : setError(reason(err)),
      );
  }, [boardId]);
  const hidden = useMemo(
    () => (def ? hiddenSlugs(def.fields, def.conditions, values) : new Set<string>()),
    [def, values],
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const fields = Object.fromEntries(
        Object.entries(values).filter(([k, v]) => !hidden.has(k) && v !== '' && v != null),
      );
      await unwrap(
        client.POST('/api/boards/{boardId}/public-form', {
          params: { path: { boardId } },
          body: { fields, ...(def?.consent && consent ? { consent: true } : {}), ...tracking } as never,
        }),
      );
      setSent(true);
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  if (missing)
    return (
      <main class="public">
        <h1>{t('notFound')}</h1>
        <p>{t('notFoundText')}</p>
      </main>
    );
  if (!def)
    return (
      <main class="public">
        {error ? (
          <p role="alert" class="error">
            {error}
          </p>
        ) : (
          <p>{t('loading')}</p>
        )}
      </main>
    );
  return (
    <main class="public" lang={getLang()}>
      <h1>{def.board.name}</h1>
      {def.phase.description && <p>{def.phase.description}</p>}
      {sent ? (
        <p role="status" class="ok" data-testid="form-sent">
          {t('formSent')}
        </p>
      ) : (
        <form class="card-form" onSubmit={submit} data-testid="public-form">
          {def.fields
            .filter((f) => !hidden.has(f.slug))
            .map((f) => (
              <FieldInput
                key={f.slug}
                field={f}
                value={values[f.slug]}
                onChange={(v) => setValues({ ...values, [f.slug]: v })}
                onFile={async (file) => {
                  try {
                    return await uploadBoardFile(boardId, file);
                  } catch (err) {
                    setError(reason(err));
                    throw err;
                  }
                }}
              />
            ))}
          {def.consent && (
            <div class="consent">
              <label class="inline" data-testid="form-consent">
                <input
                  type="checkbox"
                  name="consent"
                  checked={consent}
                  aria-describedby="consent-hint"
                  onChange={(e) => setConsent((e.target as HTMLInputElement).checked)}
                />
                <span>{def.consent.text}</span>
              </label>
              <span id="consent-hint" class="ds-hint">
                {t('consentOptional')}
              </span>
            </div>
          )}
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <Button submit busy={busy}>
            {t('send')}
          </Button>
        </form>
      )}
    </main>
  );
}
