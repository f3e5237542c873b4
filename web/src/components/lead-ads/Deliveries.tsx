import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { dateTime } from '../../i18n';
import { num } from '../../lib/words';
import { Badge, Button, type Column, DataTable, Dialog, Field, Pagination, type Tone, toast } from '../../ui';
import { Link } from '../Link';
import { type Delivery, type DeliveryStatus, type FormRoute, leadWhy, lw } from './model';

const TONE: Record<DeliveryStatus, Tone> = {
  pending: 'info',
  retrying: 'warning',
  succeeded: 'success',
  failed: 'danger',
};
const STATUSES: DeliveryStatus[] = ['failed', 'retrying', 'pending', 'succeeded'];

/** A route's leads, newest first (refreshed while open): state as words, why one failed, retry a failed one. */
export function Deliveries({
  route,
  admin,
  onClose,
}: {
  route: FormRoute;
  admin: boolean;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const r = useQuery({
    queryKey: ['lead-deliveries', route.documentId, page, status],
    placeholderData: keepPreviousData,
    refetchInterval: 2000,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/lead-form-routes/{id}/deliveries', {
          params: {
            path: { id: route.documentId },
            query: { pagination: { page, pageSize: 20 }, ...(status ? { status } : {}) } as never,
          },
        }),
      )) as unknown as { data: Delivery[]; meta: { pagination: { pageCount: number } } },
  });
  const retry = async (d: Delivery) => {
    setError('');
    try {
      await unwrap(
        client.POST('/api/lead-form-routes/{id}/deliveries/{deliveryId}/redeliver', {
          params: { path: { id: route.documentId, deliveryId: d.documentId } },
        }),
      );
      toast(lw('retried'));
      await qc.invalidateQueries({ queryKey: ['lead-deliveries', route.documentId] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Delivery>[] = [
    { key: 'lead', label: lw('lead'), render: (d) => <code>{d.leadgenId}</code> },
    { key: 'received', label: lw('received'), render: (d) => dateTime(d.receivedAt) },
    {
      key: 'status',
      label: lw('result'),
      render: (d) => <Badge tone={TONE[d.status]}>{lw(`d_${d.status}`)}</Badge>,
    },
    { key: 'attempts', label: lw('attempts'), numeric: true, render: (d) => num(d.attempts) },
    {
      key: 'why',
      label: lw('why'),
      render: (d) =>
        d.lastError && d.status !== 'succeeded' ? (
          <>
            {leadWhy(d.lastError)} <span class="sr-only">{lw('serviceSaid')}: </span>
            <code lang="en">{d.lastError}</code>
          </>
        ) : (
          '—'
        ),
    },
    {
      key: 'card',
      label: lw('card'),
      render: (d) =>
        d.card ? (
          <Link href={`/boards/${route.targetBoardDocumentId}/cards/${d.card}`}>{lw('openCard')}</Link>
        ) : admin && d.status === 'failed' ? (
          <Button
            variant="secondary"
            onClick={() => retry(d)}
            aria-label={lw('retryOf', { id: d.leadgenId })}
          >
            {lw('retry')}
          </Button>
        ) : (
          '—'
        ),
    },
  ];
  return (
    <Dialog open wide title={lw('leadsTitle', { name: route.name })} onClose={onClose}>
      <div class="mkt" data-testid="lead-deliveries">
        <Field label={lw('filter')}>
          <select
            name="lead-status"
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              setPage(1);
            }}
          >
            <option value="">{lw('all')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {lw(`d_${s}`)}
              </option>
            ))}
          </select>
        </Field>
        {(error || r.error) && (
          <p role="alert" class="error">
            {error || reason(r.error)}
          </p>
        )}
        <DataTable
          caption={lw('leadsTitle', { name: route.name })}
          columns={columns}
          rows={r.data?.data}
          loading={r.isLoading}
          rowKey={(d) => d.documentId}
          empty={lw('leadsEmpty')}
          footer={
            <Pagination page={page} pageCount={r.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
          }
        />
      </div>
    </Dialog>
  );
}
