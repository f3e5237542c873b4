import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, featureOff, reason, unwrap } from '../api';
import { FeatureOff } from '../components/FeatureOff';
import { Connections } from '../components/lead-ads/Connections';
import { Deliveries } from '../components/lead-ads/Deliveries';
import { type FormRoute, lw, useIntegrations } from '../components/lead-ads/model';
import { RouteEditor } from '../components/lead-ads/RouteEditor';
import { useBoardList } from '../lib/board-queries';
import { isAdmin } from '../lib/marketing';
import { Badge, Button, type Column, confirmAction, DataTable, PageHeader, toast } from '../ui';

/** Lead ads (BETA): connected accounts, form routes (form → board, field mapping, consent) and each route's leads. */
export function LeadAdsPage() {
  const admin = isAdmin();
  const qc = useQueryClient();
  const routes = useQuery({
    queryKey: ['lead-form-routes'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/lead-form-routes', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as FormRoute[],
  });
  const integrations = useIntegrations();
  const boards = useBoardList();
  const [editing, setEditing] = useState<FormRoute | 'new' | null>(null);
  const [leads, setLeads] = useState<FormRoute | null>(null);
  const [error, setError] = useState('');
  const off = featureOff(routes.error);
  if (off) return <FeatureOff feature={off} />;

  const remove = async (r: FormRoute) => {
    const ok = await confirmAction({
      title: lw('removeTitle', { name: r.name }),
      text: lw('removeText'),
      confirmLabel: lw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/lead-form-routes/{id}', { params: { path: { id: r.documentId } } }));
      toast(lw('removed'));
      await qc.invalidateQueries({ queryKey: ['lead-form-routes'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const connName = (id: string) => integrations.data?.find((i) => i.documentId === id)?.name ?? '';
  const boardName = (id: string) => boards.data?.find((b) => b.documentId === id)?.name ?? '';
  const columns: Column<FormRoute>[] = [
    { key: 'name', label: lw('routeName'), render: (r) => <strong>{r.name}</strong> },
    {
      key: 'form',
      label: lw('form'),
      render: (r) => (
        <>
          {r.leadFormName ?? r.leadFormId}
          <span class="muted"> · {connName(r.leadIntegrationDocumentId)}</span>
        </>
      ),
    },
    { key: 'board', label: lw('board'), render: (r) => boardName(r.targetBoardDocumentId) },
    {
      key: 'mapping',
      label: lw('mapping'),
      render: (r) => {
        const n = r.fieldMapping.mappings.length;
        return n === 1 ? lw('field1') : lw('fields', { n });
      },
    },
    {
      key: 'consent',
      label: lw('consent'),
      render: (r) =>
        r.consentCapture ? (
          <Badge tone="info">{r.consentCapture.channels.map((c) => lw(`ch_${c}`)).join(', ')}</Badge>
        ) : (
          '—'
        ),
    },
    {
      key: 'do',
      label: lw('tableActions'),
      render: (r) => (
        <span class="ds-actions">
          {admin && (
            <Button
              variant="secondary"
              onClick={() => setEditing(r)}
              aria-label={lw('editOf', { name: r.name })}
            >
              {lw('edit')}
            </Button>
          )}
          <Button
            variant="secondary"
            onClick={() => setLeads(r)}
            aria-label={lw('leadsOf', { name: r.name })}
          >
            {lw('leads')}
          </Button>
          {admin && (
            <Button variant="ghost" onClick={() => remove(r)} aria-label={lw('removeOf', { name: r.name })}>
              {lw('remove')}
            </Button>
          )}
        </span>
      ),
    },
  ];
  return (
    <section class="page mkt" data-testid="lead-ads">
      <PageHeader title={lw('title')} beta>
        <p class="muted">{lw('intro')}</p>
        {!admin && <p class="muted">{lw('readOnly')}</p>}
      </PageHeader>
      <Connections admin={admin} />
      <section class="la-section" aria-labelledby="la-routes">
        <div class="la-head">
          <h2 id="la-routes">{lw('routes')}</h2>
          {admin && (
            <Button onClick={() => setEditing('new')} disabled={!integrations.data?.length}>
              {lw('newRoute')}
            </Button>
          )}
        </div>
        {(error || routes.error) && (
          <p role="alert" class="error">
            {error || reason(routes.error)}
          </p>
        )}
        <DataTable
          caption={lw('routes')}
          testId="lead-routes"
          columns={columns}
          rows={routes.data}
          loading={routes.isLoading}
          rowKey={(r) => r.documentId}
          empty={lw('noRoutes')}
        />
      </section>
      {editing && (
        <RouteEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          route={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      )}
      {leads && <Deliveries route={leads} admin={admin} onClose={() => setLeads(null)} />}
    </section>
  );
}
