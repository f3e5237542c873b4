import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { dateTime, getLang } from '../../i18n';
import { fileSize } from '../../lib/file-size';
import { Badge, Button, confirmAction, Field, type Tone, toast } from '../../ui';
import { codeWord, isErased, type PrivacyRequest, pw, shownName } from './lgpd';
import type { Contact } from './shared';

const TONES: Record<PrivacyRequest['status'], Tone> = {
  queued: 'neutral',
  running: 'info',
  done: 'success',
  failed: 'danger',
};
const finished = (r: PrivacyRequest | undefined) => r?.status === 'done' || r?.status === 'failed';

/** A request as the service has it now: asked again every 1.5 s until it is done or failed. */
function useRequest(first: PrivacyRequest) {
  return useQuery({
    queryKey: ['privacy-request', first.documentId],
    initialData: first,
    queryFn: () =>
      unwrap(client.GET('/api/privacy-requests/{id}', { params: { path: { id: first.documentId } } })),
    refetchInterval: (q) => (finished(q.state.data) ? false : 1500),
  });
}

/**
 * A contact's LGPD rights (docs/lgpd.md; organization admins and owners, the only ones the service lets ask): an
 * export of everything kept about the person, with its one-time link and status, and the erasure of their personal
 * data after a confirmation. Once the erasure is done every query of the app is asked again, so no page keeps
 * showing what was erased.
 */
export function Privacy({ contact }: { contact: Contact }) {
  const qc = useQueryClient();
  const id = contact.documentId;
  const [exported, setExported] = useState<{ request: PrivacyRequest; url: string } | null>(null);
  const [erasure, setErasure] = useState<PrivacyRequest | null>(null);
  const [busy, setBusy] = useState<'export' | 'erase' | null>(null);
  const [error, setError] = useState('');
  const requestExport = async () => {
    setError('');
    setBusy('export');
    try {
      const r = await unwrap(client.POST('/api/contacts/{id}/data-export', { params: { path: { id } } }));
      setExported({ request: r, url: new URL(r.downloadUrl ?? '', location.origin).href });
      toast(pw('exportRequested'));
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(null);
    }
  };
  const requestErasure = async () => {
    const ok = await confirmAction({
      title: pw('eraseTitle', { name: shownName(contact.name) }),
      text: pw('eraseText'),
      confirmLabel: pw('eraseConfirm'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    setBusy('erase');
    try {
      const r = await unwrap(
        client.POST('/api/contacts/{id}/erase', { params: { path: { id } }, body: { confirm: id } }),
      );
      setErasure(r);
      toast(pw('eraseRequested'));
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(null);
    }
  };
  const erased = isErased(contact);
  return (
    <section class="ct-block" aria-labelledby="privacy-title" data-testid="privacy">
      <h3 id="privacy-title">
        {pw('privacy')} <Badge tone="info">{pw('beta')}</Badge>
      </h3>
      {erased ? (
        <p class="muted">{pw('erased')}</p>
      ) : (
        <>
          <p class="muted small">{pw('privacyIntro')}</p>
          <div class="ct-rights">
            <div>
              <Button variant="secondary" busy={busy === 'export'} onClick={requestExport}>
                {pw('exportData')}
              </Button>
              <p class="muted small">{pw('exportHelp')}</p>
            </div>
            <div>
              <Button variant="danger" busy={busy === 'erase'} onClick={requestErasure}>
                {pw('erase')}
              </Button>
              <p class="muted small">{pw('eraseHelp')}</p>
            </div>
          </div>
        </>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {exported && !erased && <ExportRequest first={exported.request} url={exported.url} />}
      {erasure && (
        <ErasureRequest
          first={erasure}
          onErased={() => {
            setExported(null);
            void qc.invalidateQueries();
          }}
        />
      )}
    </section>
  );
}

/** A request's kind, status and time, announced as it changes. */
function RequestHead({ label, request }: { label: string; request: PrivacyRequest }) {
  return (
    <p class="ct-request-head" role="status" data-request-status={request.status}>
      <strong>{label}</strong> <Badge tone={TONES[request.status]}>{codeWord('rq', request.status)}</Badge>{' '}
      <span class="muted small">{pw('requestedAt', { when: dateTime(request.createdAt) })}</span>
    </p>
  );
}

/**
 * The export: its status and the link the service shows only in the answer to the request. The link works once:
 * after the person used it the page says so instead of offering it again.
 */
function ExportRequest({ first, url }: { first: PrivacyRequest; url: string }) {
  const r = useRequest(first).data;
  const [used, setUsed] = useState(false);
  return (
    <div class="ct-request ok" data-testid="export-request">
      <RequestHead label={pw('exportStatus')} request={r} />
      {r.status === 'failed' ? (
        <p>{pw('exportFailed')}</p>
      ) : used ? (
        <p>{pw('downloaded')}</p>
      ) : (
        <>
          <p>
            <strong>{pw('linkOnce')}</strong>
          </p>
          <Field label={pw('link')}>
            <input
              readOnly
              class="ct-link"
              name="export-link"
              value={url}
              onFocus={(e) => (e.target as HTMLInputElement).select()}
            />
          </Field>
          {r.status === 'done' ? (
            <>
              <a class="button-link" href={url} download onClick={() => setUsed(true)}>
                {pw('download')}
              </a>
              {r.expiresAt && (
                <p class="small">
                  {pw('linkUntil', { when: dateTime(r.expiresAt), size: fileSize(r.fileBytes ?? 0) })}
                </p>
              )}
            </>
          ) : (
            <p class="small">{pw('waitReady')}</p>
          )}
        </>
      )}
    </div>
  );
}

/** The erasure: its status; once done, `onErased` (the page asks for everything again). */
function ErasureRequest({ first, onErased }: { first: PrivacyRequest; onErased: () => void }) {
  const r = useRequest(first).data;
  useEffect(() => {
    if (r.status === 'done') onErased();
  }, [r.status]);
  const warnings = r.status === 'done' && r.warnings.length > 0;
  return (
    <div class={`ct-request ${r.status === 'failed' ? 'error' : 'ok'}`} data-testid="erasure-request">
      <RequestHead label={pw('eraseStatus')} request={r} />
      {warnings && <p>{getLang() === 'en' ? r.warnings.join(' ') : pw('eraseWarnings')}</p>}
      {r.status === 'failed' && <p>{pw('eraseFailed')}</p>}
    </div>
  );
}
