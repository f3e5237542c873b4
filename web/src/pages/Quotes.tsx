import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { FeatureOff } from '../components/FeatureOff';
import { usePdfTemplates } from '../components/sales/pdf-layout';
import { QuoteEditor } from '../components/sales/QuoteEditor';
import { SalesTabs } from '../components/sales/SalesTabs';
import {
  day,
  money,
  QUOTE_STATUSES,
  type Quote,
  type QuoteStatus,
  statusWord,
  sw,
  useOrgCurrency,
} from '../components/sales/shared';
import { dateTime } from '../i18n';
import { personName } from '../lib/people';
import { saveBlob } from '../lib/save-blob';
import { num } from '../lib/words';
import { canWrite } from '../session';
import {
  Avatar,
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  PageHeader,
  Pagination,
  type Sort,
  type Tone,
  toast,
} from '../ui';

const PAGE_SIZE = 20;
const TONE: Record<QuoteStatus, Tone> = {
  draft: 'neutral',
  sent: 'info',
  accepted: 'success',
  rejected: 'danger',
  expired: 'warning',
};

/**
 * The quote as a PDF file, downloaded with the person's session: rendered with the template picked for it, else the
 * organization's default template (or the built-in layout).
 */
async function downloadPdf(q: Quote, template: string) {
  const blob = (await unwrap(
    client.GET('/api/quotes/{id}/pdf', {
      params: { path: { id: q.documentId }, query: template ? { template } : {} },
      parseAs: 'blob',
    }),
  )) as unknown as Blob;
  saveBlob(blob, `${sw('numberOf', { number: q.number }).replace(/\s+/g, '-').toLowerCase()}.pdf`);
}

/** Quotes: the list (status as words, totals in the quote's currency), create and edit, the PDF, delete. */
export function QuotesPage() {
  const qc = useQueryClient();
  const writer = canWrite();
  const currency = useOrgCurrency();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [sort, setSort] = useState<Sort>({ key: 'number', dir: 'desc' });
  const [editing, setEditing] = useState<Quote | 'new' | null>(null);
  const [error, setError] = useState('');
  const [template, setTemplate] = useState('');
  // The quotes whose PDF is being rendered: each one's button busy, a second click not rendering it twice.
  const [rendering, setRendering] = useState<string[]>([]);
  const templates = usePdfTemplates();
  const list = useQuery({
    queryKey: ['quotes', page, status, sort.key, sort.dir],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/quotes', {
          params: {
            query: {
              pagination: { page, pageSize: PAGE_SIZE },
              sort: `${sort.key}:${sort.dir}`,
              ...(status ? { filters: { status: { $eq: status } } } : {}),
            } as never,
          },
        }),
      )) as unknown as { data: Quote[]; meta: { pagination: { pageCount: number } } },
  });
  const off = list.error && (list.error as { details?: { feature?: string } }).details?.feature;
  if (typeof off === 'string') return <FeatureOff feature={off} />;

  const pdf = async (q: Quote) => {
    if (rendering.includes(q.documentId)) return;
    setRendering((all) => [...all, q.documentId]);
    setError('');
    try {
      await downloadPdf(q, template);
      toast(sw('pdfReady', { number: q.number }));
    } catch (err) {
      setError(reason(err));
    } finally {
      setRendering((all) => all.filter((id) => id !== q.documentId));
    }
  };
  const remove = async (q: Quote) => {
    const ok = await confirmAction({
      title: sw('removeQuoteTitle'),
      text: sw('removeQuoteText', { number: q.number }),
      confirmLabel: sw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/quotes/{id}', { params: { path: { id: q.documentId } } }));
      toast(sw('quoteRemoved'));
      await qc.invalidateQueries({ queryKey: ['quotes'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Quote>[] = [
    { key: 'number', label: sw('number'), sortable: true, numeric: true, render: (q) => num(q.number) },
    { key: 'title', label: sw('title'), sortable: true, render: (q) => q.title ?? '—' },
    {
      key: 'for',
      label: sw('for'),
      render: (q) => [q.contact?.name, q.card?.title].filter(Boolean).join(' · ') || '—',
    },
    {
      key: 'status',
      label: sw('status'),
      sortable: true,
      render: (q) => <Badge tone={TONE[q.status]}>{statusWord(q.status)}</Badge>,
    },
    {
      key: 'owner',
      label: sw('owner'),
      render: (q) =>
        q.owner ? (
          <span class="sales-owner">
            <Avatar user={q.owner.user} /> {personName(q.owner)}
          </span>
        ) : (
          '—'
        ),
    },
    { key: 'validUntil', label: sw('validUntil'), sortable: true, render: (q) => day(q.validUntil) || '—' },
    {
      key: 'total',
      label: sw('total'),
      sortable: true,
      numeric: true,
      render: (q) => money(q.total, q.currency),
    },
    { key: 'createdAt', label: sw('created'), sortable: true, render: (q) => dateTime(q.createdAt) },
    {
      key: 'actions',
      label: sw('actions'),
      render: (q) => (
        <span class="ds-actions">
          <Button
            variant="secondary"
            busy={rendering.includes(q.documentId)}
            onClick={() => pdf(q)}
            aria-label={sw('pdfOf', { number: q.number })}
          >
            {sw('pdf')}
          </Button>
          {writer && (
            <>
              <Button
                variant="secondary"
                onClick={() => setEditing(q)}
                aria-label={sw('editQuoteOf', { number: q.number })}
              >
                {sw('edit')}
              </Button>
              <Button
                variant="ghost"
                onClick={() => remove(q)}
                aria-label={sw('removeQuoteOf', { number: q.number })}
              >
                {sw('remove')}
              </Button>
            </>
          )}
        </span>
      ),
    },
  ];
  return (
    <section class="page mkt" data-testid="quotes">
      <PageHeader
        title={sw('quotes')}
        actions={writer && <Button onClick={() => setEditing('new')}>{sw('newQuote')}</Button>}
      >
        <p class="muted">{sw('quotesIntro')}</p>
      </PageHeader>
      <SalesTabs at="quotes" />
      <div class="mkt-toolbar">
        <label>
          {sw('filterStatus')}{' '}
          <select
            name="quote-status-filter"
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              setPage(1);
            }}
          >
            <option value="">{sw('allStatuses')}</option>
            {QUOTE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusWord(s)}
              </option>
            ))}
          </select>
        </label>
        {!!templates.data?.length && (
          <label>
            {sw('pdfTemplate')}{' '}
            <select
              name="quote-pdf-template"
              value={template}
              onChange={(e) => setTemplate((e.target as HTMLSelectElement).value)}
            >
              <option value="">{sw('pdfDefaultTemplate')}</option>
              {templates.data.map((t) => (
                <option key={t.documentId} value={t.documentId}>
                  {t.isDefault ? sw('pdfTemplateDefaultMark', { name: t.name }) : t.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <DataTable
        caption={sw('quotes')}
        testId="quote-list"
        columns={columns}
        rows={list.data?.data}
        loading={list.isLoading}
        rowKey={(q) => q.documentId}
        rowAttrs={(q) => ({ 'data-quote-id': q.documentId })}
        sort={sort}
        onSort={(s) => {
          setSort(s);
          setPage(1);
        }}
        empty={sw('quotesEmpty')}
        footer={
          <Pagination page={page} pageCount={list.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
        }
      />
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {editing && (
        <QuoteEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          quote={editing === 'new' ? null : editing}
          currency={currency}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}
