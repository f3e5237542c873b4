import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, client, reason, unwrap } from '../../api';
import { getLang } from '../../i18n';
import { num } from '../../lib/words';
import { getSession } from '../../session';
import { Badge, Button, type Column, DataTable, Dialog, Field, Pagination, type Tone } from '../../ui';
import { type ContactKey, cw, fieldWord, refusalWord } from './shared';

/** What a column can be read into (contacts schema IMPORT_FIELDS, consent columns), besides auto and ignore. */
const TARGETS = [
  'name',
  'email',
  'phone',
  'contact_type',
  'cpf',
  'cnpj',
  'address',
  'city',
  'state',
  'country',
  'postal_code',
  'birthdate',
  'first_buy_date',
  'owner',
  'team',
  'consent.whatsapp.marketing',
  'consent.whatsapp.transactional',
  'consent.email.marketing',
  'consent.email.transactional',
  'consent.sms.marketing',
  'consent.sms.transactional',
];
const MATCH_KEYS = ['cpf', 'cnpj', 'email', 'phone'] as const;
const DELIMITERS = ['auto', ',', ';', 'tab'] as const;

interface Failure {
  row: number;
  line: number;
  field: string | null;
  message: string;
}
interface ImportJob {
  documentId: string;
  status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  bytesTotal: number;
  bytesDone: number;
  rowsDone: number;
  rowsCreated: number;
  rowsUpdated: number;
  rowsFailed: number;
  failures: Failure[];
  error: string | null;
}
const TONE: Record<ImportJob['status'], Tone> = {
  queued: 'neutral',
  running: 'info',
  done: 'success',
  failed: 'danger',
  cancelled: 'warning',
};
const finished = (s: ImportJob['status'] | undefined) => s === 'done' || s === 'failed' || s === 'cancelled';

/**
 * Why a whole import was refused or failed, in the chosen language (the runner's reasons, src/platform/imports/
 * runner.ts); one it does not know, in English only.
 */
function importError(error: string): string {
  const line = /after line (\d+)/.exec(error)?.[1];
  if (line) return cw('fail_malformedAt', { line: num(Number(line)) });
  if (/^Malformed CSV/i.test(error)) return cw('fail_malformed');
  if (/empty/i.test(error)) return cw('fail_empty');
  if (/no longer a member/i.test(error)) return cw('fail_member');
  if (/file is gone/i.test(error)) return cw('fail_gone');
  if (/mapping/i.test(error)) return cw('fail_mapping');
  return getLang() === 'en' ? error : '';
}

/** The header of a CSV file (its first line), split by the chosen separator or the likeliest one. */
async function headerOf(file: File, delimiter: string): Promise<string[]> {
  const first = (await file.slice(0, 64 * 1024).text()).replace(/^\uFEFF/, '').split(/\r?\n/)[0] ?? '';
  const sep =
    delimiter === 'tab'
      ? '\t'
      : delimiter !== 'auto'
        ? delimiter
        : ([',', ';', '\t'] as const).reduce((a, b) =>
            first.split(b).length > first.split(a).length ? b : a,
          );
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  for (const ch of first) {
    if (ch === '"') quoted = !quoted;
    else if (ch === sep && !quoted) {
      out.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  out.push(cell.trim());
  return out.filter(Boolean);
}

/** POSTs a multipart form with the session's headers (openapi-fetch serializes JSON bodies). */
async function postForm(path: string, form: FormData): Promise<ImportJob> {
  const s = getSession();
  const res = await fetch(path, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${s?.jwt ?? ''}`, 'x-tenant-id': s?.org?.slug ?? '' },
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const e = body?.error ?? {};
    throw new ApiError(res.status, e.name ?? 'Error', e.message ?? res.statusText, e.details ?? {});
  }
  return body as ImportJob;
}

/**
 * Imports a CSV in the background (POST /contacts/imports, then GET /contacts/imports/{id} until it ends):
 * separator, how existing contacts are recognized (matchBy) and where each column goes (mapping, consent columns
 * included); then the progress, the counts, and every skipped row with its line and reason.
 */
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [delimiter, setDelimiter] = useState<(typeof DELIMITERS)[number]>('auto');
  const [match, setMatch] = useState<string[]>(['cpf', 'cnpj', 'email']);
  const [header, setHeader] = useState<string[]>([]);
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const [jobId, setJobId] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (file) void headerOf(file, delimiter).then(setHeader);
    else setHeader([]);
    setMapping({});
  }, [file, delimiter]);

  const job = useQuery({
    queryKey: ['contact-import', jobId],
    enabled: !!jobId,
    refetchInterval: (q) => (finished(q.state.data?.status) ? false : 700),
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/contacts/imports/{id}', { params: { path: { id: jobId } } }),
      )) as unknown as ImportJob,
  });
  const status = job.data?.status;
  useEffect(() => {
    if (finished(status)) void qc.invalidateQueries({ queryKey: ['contacts'] });
  }, [status]);

  const start = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    if (!file) return setErrors({ file: cw('pickFile') });
    if (!match.length) return setErrors({ matchBy: cw('pickMatch') });
    const form = new FormData();
    // The options go before the file: the service reads them as it streams the upload.
    form.append('delimiter', delimiter);
    form.append('matchBy', MATCH_KEYS.filter((k) => match.includes(k)).join(','));
    const chosen = Object.fromEntries(Object.entries(mapping).filter(([, v]) => v));
    if (Object.keys(chosen).length) form.append('mapping', JSON.stringify(chosen));
    form.append('file', file, file.name);
    setBusy(true);
    try {
      const j = await postForm('/api/contacts/imports', form);
      qc.setQueryData(['contact-import', j.documentId], j);
      setJobId(j.documentId);
    } catch (err) {
      const details = err instanceof ApiError ? ((err.details?.errors ?? []) as { path?: string[] }[]) : [];
      const at = details[0]?.path?.[0];
      if (at === 'mapping') setErrors({ mapping: reason(err) });
      else if (at === 'file') setErrors({ file: importError((err as ApiError).message) || reason(err) });
      else setGeneral(reason(err));
    } finally {
      setBusy(false);
    }
  };
  const cancel = async () => {
    try {
      await unwrap(client.POST('/api/contacts/imports/{id}/cancel', { params: { path: { id: jobId } } }));
      await job.refetch();
    } catch (err) {
      setGeneral(reason(err));
    }
  };

  return (
    <Dialog
      open
      wide
      title={cw('importTitle')}
      onClose={onClose}
      footer={
        jobId ? (
          <>
            {!finished(status) && (
              <Button variant="secondary" onClick={cancel}>
                {cw('cancelImport')}
              </Button>
            )}
            {finished(status) && (
              <Button
                variant="secondary"
                onClick={() => {
                  setJobId('');
                  setFile(null);
                }}
              >
                {cw('another')}
              </Button>
            )}
            <Button onClick={onClose}>{cw('close')}</Button>
          </>
        ) : (
          <>
            <Button variant="secondary" onClick={onClose}>
              {cw('cancel')}
            </Button>
            <Button submit busy={busy} form="import-form">
              {cw('start')}
            </Button>
          </>
        )
      }
    >
      {jobId && job.data ? (
        <ImportProgress job={job.data} />
      ) : (
        <form id="import-form" class="ct-form" onSubmit={start} noValidate>
          <p class="muted">{cw('importIntro')}</p>
          <div class="ct-grid">
            {/* The browser's own file button speaks the browser's language: the page's button opens the picker. */}
            <div>
              <Field label={cw('file')} error={errors.file} required>
                <input
                  ref={fileInput}
                  type="file"
                  class="sr-only"
                  tabIndex={-1}
                  name="import-file"
                  accept=".csv,text/csv,text/plain"
                  onChange={(e) => {
                    setFile((e.target as HTMLInputElement).files?.[0] ?? null);
                    setErrors({});
                  }}
                />
              </Field>
              <div class="ct-file">
                <Button variant="secondary" onClick={() => fileInput.current?.click()}>
                  {cw('chooseFile')}
                </Button>
                <span class="muted" data-testid="import-file-name">
                  {file ? file.name : cw('noFile')}
                </span>
              </div>
            </div>
            <Field label={cw('delimiter')}>
              <select
                name="import-delimiter"
                value={delimiter}
                onChange={(e) => setDelimiter((e.target as HTMLSelectElement).value as typeof delimiter)}
              >
                {DELIMITERS.map((d) => (
                  <option key={d} value={d}>
                    {cw(`delim_${d}` as ContactKey)}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <fieldset>
            <legend>{cw('matchBy')}</legend>
            <p class="muted small">{cw('matchHint')}</p>
            <div class="ct-checks">
              {MATCH_KEYS.map((k) => (
                <label key={k} class="ct-check">
                  <input
                    type="checkbox"
                    name={`match-${k}`}
                    checked={match.includes(k)}
                    onChange={(e) =>
                      setMatch(
                        (e.target as HTMLInputElement).checked ? [...match, k] : match.filter((x) => x !== k),
                      )
                    }
                  />{' '}
                  {cw(`match_${k}`)}
                </label>
              ))}
            </div>
            {errors.matchBy && (
              <p class="ds-error" role="alert">
                {errors.matchBy}
              </p>
            )}
          </fieldset>
          <p class="muted small">
            {cw('consentHint')} <code>consentimento_whatsapp</code>, <code>consentimento_email</code>,{' '}
            <code>consentimento_sms</code>
          </p>
          {header.length > 0 && (
            <fieldset>
              <legend>{cw('columns')}</legend>
              <p class="muted small">{cw('columnsHint')}</p>
              <div class="ct-mapping">
                {header.map((h, i) => (
                  <Field key={h} label={h}>
                    <select
                      name={`map-${i}`}
                      value={mapping[h] ?? ''}
                      onChange={(e) => setMapping({ ...mapping, [h]: (e.target as HTMLSelectElement).value })}
                    >
                      <option value="">{cw('auto')}</option>
                      <option value="ignore">{cw('ignore')}</option>
                      {TARGETS.map((t) => (
                        <option key={t} value={t}>
                          {fieldWord(t)}
                        </option>
                      ))}
                      <option value={`customFields.${h}`}>{cw('custom', { key: h })}</option>
                    </select>
                  </Field>
                ))}
              </div>
              {errors.mapping && (
                <p class="ds-error" role="alert">
                  {errors.mapping}
                </p>
              )}
            </fieldset>
          )}
          {general && (
            <p role="alert" class="error">
              {general}
            </p>
          )}
        </form>
      )}
    </Dialog>
  );
}

/** A running or finished import: its state, a progress bar, the counts and the skipped rows. */
function ImportProgress({ job }: { job: ImportJob }) {
  const done = finished(job.status);
  const [page, setPage] = useState(1);
  // Once finished, every skipped row page by page (the job itself carries the first 20).
  const all = useQuery({
    queryKey: ['contact-import-failures', job.documentId, page],
    enabled: done && job.rowsFailed > job.failures.length,
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/contacts/imports/{id}/failures', {
          params: { path: { id: job.documentId }, query: { pagination: { page, pageSize: 20 } } as never },
        }),
      )) as unknown as { data: Failure[]; meta: { pagination: { pageCount: number } } },
  });
  const rows = all.data?.data ?? job.failures;
  const pct = job.bytesTotal ? Math.round((job.bytesDone / job.bytesTotal) * 100) : done ? 100 : 0;
  const columns: Column<Failure>[] = [
    { key: 'line', label: cw('line'), numeric: true, render: (f) => num(f.line) },
    { key: 'field', label: cw('field'), render: (f) => fieldWord(f.field) || '—' },
    { key: 'reason', label: cw('reason'), render: (f) => refusalWord(f.message) },
  ];
  return (
    <div data-testid="import-progress" data-status={job.status}>
      <p aria-live="polite">
        <Badge tone={TONE[job.status]}>{cw(`st_${job.status}` as ContactKey)}</Badge>{' '}
        {job.status === 'done' &&
          cw('importDone', {
            created: num(job.rowsCreated),
            updated: num(job.rowsUpdated),
            failed: num(job.rowsFailed),
          })}
        {job.status === 'failed' && cw('importFailed', { reason: importError(job.error ?? '') })}
      </p>
      <label class="ct-progress">
        {cw('progress')}
        <progress max={100} value={pct}>
          {num(pct)}%
        </progress>
      </label>
      <dl class="ct-counts">
        <div>
          <dt>{cw('rowsDone')}</dt>
          <dd data-count="done">{num(job.rowsDone)}</dd>
        </div>
        <div>
          <dt>{cw('rowsCreated')}</dt>
          <dd data-count="created">{num(job.rowsCreated)}</dd>
        </div>
        <div>
          <dt>{cw('rowsUpdated')}</dt>
          <dd data-count="updated">{num(job.rowsUpdated)}</dd>
        </div>
        <div>
          <dt>{cw('rowsFailed')}</dt>
          <dd data-count="failed">{num(job.rowsFailed)}</dd>
        </div>
      </dl>
      <h3>{cw('failuresTitle')}</h3>
      <div data-testid="import-failures">
        <DataTable
          caption={cw('failuresTitle')}
          columns={columns}
          rows={rows}
          rowKey={(f) => String(f.row)}
          empty={cw('noFailures')}
          footer={
            all.data && (
              <Pagination page={page} pageCount={all.data.meta.pagination.pageCount} onPage={setPage} />
            )
          }
        />
      </div>
    </div>
  );
}
