import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, client, type Page, reason, unwrap } from '../api';
import { gw, rulesSentence, type Segment, useFilterOptions } from '../components/segments/model';
import { SegmentEditor } from '../components/segments/SegmentEditor';
import { dateTime } from '../i18n';
import { num } from '../lib/words';
import { canWrite } from '../session';
import {
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  PageHeader,
  Pagination,
  type Sort,
  toast,
} from '../ui';

const PAGE_SIZE = 20;

/** A refused delete in words: the segments that depend on it by name, or its use by a campaign. */
function refusalText(err: unknown): string {
  if (err instanceof ApiError) {
    const dependents = err.details?.dependents;
    if (Array.isArray(dependents) && dependents.length)
      return gw('usedBy', { names: dependents.map((d: { name: string }) => d.name).join(', ') });
    if (err.status === 422 && /in use/i.test(err.message)) return gw('inUse');
  }
  return reason(err);
}

/**
 * Segments (issue 31 item 1): the list (sorted and paged by the API, each with its live count), a segment created
 * or edited with its rules as words and the contacts they match as they change, deleted after confirming.
 */
export function SegmentsPage() {
  const write = canWrite();
  const qc = useQueryClient();
  const options = useFilterOptions();
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>({ key: 'name', dir: 'asc' });
  const [editing, setEditing] = useState<Segment | 'new' | null>(null);
  const [error, setError] = useState('');
  const list = useQuery({
    queryKey: ['segments', page, sort.key, sort.dir],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/segments', {
          params: {
            query: { pagination: { page, pageSize: PAGE_SIZE }, sort: `${sort.key}:${sort.dir}` } as never,
          },
        }),
      )) as unknown as Page<Segment>,
  });
  const remove = async (s: Segment) => {
    const ok = await confirmAction({
      title: gw('removeTitle'),
      text: gw('removeText', { name: s.name }),
      confirmLabel: gw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/segments/{id}', { params: { path: { id: s.documentId } } }));
      toast(gw('removed'));
      await qc.invalidateQueries({ queryKey: ['segments'] });
      await qc.invalidateQueries({ queryKey: ['segment-filter-options'] });
    } catch (err) {
      setError(refusalText(err));
    }
  };
  const columns: Column<Segment>[] = [
    {
      key: 'name',
      label: gw('name'),
      sortable: true,
      render: (s) => (
        <>
          <strong>{s.name}</strong>
          {s.description && <span class="muted seg-desc">{s.description}</span>}
        </>
      ),
    },
    {
      key: 'rules',
      label: gw('rules'),
      render: (s) => <span class="seg-sentence">{rulesSentence(s, options.data)}</span>,
    },
    {
      key: 'contactCount',
      label: gw('contacts'),
      numeric: true,
      render: (s) => <span data-count={s.contactCount}>{num(s.contactCount)}</span>,
    },
    {
      key: 'active',
      label: gw('active'),
      render: (s) => (
        <Badge tone={s.active ? 'success' : 'neutral'}>{s.active ? gw('active') : gw('inactive')}</Badge>
      ),
    },
    { key: 'updatedAt', label: gw('updated'), sortable: true, render: (s) => dateTime(s.updatedAt) },
    ...(write
      ? [
          {
            key: 'actions',
            label: gw('actions'),
            render: (s: Segment) => (
              <span class="ds-actions">
                <Button
                  variant="secondary"
                  onClick={() => setEditing(s)}
                  aria-label={gw('editOf', { name: s.name })}
                >
                  {gw('edit')}
                </Button>
                <Button
                  variant="ghost"
                  onClick={() => remove(s)}
                  aria-label={gw('removeOf', { name: s.name })}
                >
                  {gw('remove')}
                </Button>
              </span>
            ),
          },
        ]
      : []),
  ];
  const pag = list.data?.meta.pagination;
  return (
    <section class="page seg" data-testid="segments">
      <PageHeader
        title={gw('title')}
        actions={write && <Button onClick={() => setEditing('new')}>{gw('newSegment')}</Button>}
      >
        <p class="muted">{gw('intro')}</p>
      </PageHeader>
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      <DataTable
        caption={gw('listCaption')}
        testId="segments-table"
        columns={columns}
        rows={list.data?.data}
        loading={list.isLoading}
        rowKey={(s) => s.documentId}
        rowAttrs={(s) => ({ 'data-segment-id': s.documentId })}
        sort={sort}
        onSort={(s) => {
          setSort(s);
          setPage(1);
        }}
        empty={gw('empty')}
        footer={
          pag && (
            <div class="ct-foot">
              <span class="muted">{gw(pag.total === 1 ? 'totalOne' : 'total', { n: num(pag.total) })}</span>
              <Pagination page={page} pageCount={pag.pageCount} onPage={setPage} />
            </div>
          )
        }
      />
      {editing && (
        <SegmentEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          segment={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}
