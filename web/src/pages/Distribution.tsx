import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { QueueEditor } from '../components/distribution/QueueEditor';
import { dw, type Queue, strategyWord, useMemberships } from '../components/distribution/shared';
import { FeatureOff } from '../components/FeatureOff';
import { dateTime } from '../i18n';
import { isAdmin } from '../lib/marketing';
import { personName } from '../lib/people';
import { num } from '../lib/words';
import { Avatar, Badge, Button, type Column, confirmAction, DataTable, PageHeader, toast } from '../ui';

/** Distribution queues (BETA in the API): who gets a board's new cards or an inbox's new conversations. */
export function DistributionPage() {
  const admin = isAdmin();
  const qc = useQueryClient();
  const memberships = useMemberships();
  const [editing, setEditing] = useState<Queue | 'new' | null>(null);
  const [error, setError] = useState('');
  const list = useQuery({
    queryKey: ['distribution-queues'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/distribution-queues', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as Queue[],
  });
  const off = list.error && (list.error as { details?: { feature?: string } }).details?.feature;
  if (typeof off === 'string') return <FeatureOff feature={off} />;

  const member = (id: string) => memberships.data?.find((m) => m.documentId === id);
  const refresh = () => qc.invalidateQueries({ queryKey: ['distribution-queues'] });
  const toggle = async (q: Queue) => {
    setError('');
    try {
      await unwrap(
        client.PUT('/api/distribution-queues/{id}', {
          params: { path: { id: q.documentId } },
          body: { data: { active: !q.active } },
        }),
      );
      toast(q.active ? dw('paused') : dw('resumed'));
      await refresh();
    } catch (err) {
      setError(reason(err));
    }
  };
  const remove = async (q: Queue) => {
    const ok = await confirmAction({
      title: dw('removeTitle'),
      text: dw('removeText'),
      confirmLabel: dw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(
        client.DELETE('/api/distribution-queues/{id}', { params: { path: { id: q.documentId } } }),
      );
      toast(dw('removed'));
      await refresh();
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Queue>[] = [
    { key: 'name', label: dw('name'), render: (q) => <strong>{q.name}</strong> },
    {
      key: 'serves',
      label: dw('serves'),
      render: (q) =>
        q.board ? dw('boardOf', { name: q.board.name }) : dw('inboxOf', { name: q.inbox?.name ?? '' }),
    },
    { key: 'strategy', label: dw('strategy'), render: (q) => strategyWord(q.strategy) },
    {
      key: 'members',
      label: dw('members'),
      render: (q) => (
        <ul class="plain dist-people">
          {q.members.map((m) => {
            const who = member(m.membership.documentId);
            return (
              <li key={m.membership.documentId} class={m.active ? undefined : 'muted'}>
                <Avatar user={who?.user} /> {personName(who) || '—'}
                {q.strategy === 'weighted' && <span class="muted"> × {num(m.weight)}</span>}
                <span class="muted small">
                  {' '}
                  · {dw('assigned')}: {num(m.assignedCount)}
                  {m.lastAssignedAt && ` · ${dw('lastAssigned')} ${dateTime(m.lastAssignedAt)}`}
                </span>
              </li>
            );
          })}
        </ul>
      ),
    },
    {
      key: 'active',
      label: dw('state'),
      render: (q) => <Badge tone={q.active ? 'success' : 'warning'}>{q.active ? dw('on') : dw('off')}</Badge>,
    },
    ...(admin
      ? [
          {
            key: 'actions',
            label: dw('actions'),
            render: (q: Queue) => (
              <span class="ds-actions">
                <Button
                  variant="secondary"
                  onClick={() => setEditing(q)}
                  aria-label={dw('editOf', { name: q.name })}
                >
                  {dw('edit')}
                </Button>
                <Button
                  variant="secondary"
                  onClick={() => toggle(q)}
                  aria-label={dw(q.active ? 'pauseOf' : 'resumeOf', { name: q.name })}
                >
                  {q.active ? dw('pause') : dw('resume')}
                </Button>
                <Button
                  variant="ghost"
                  onClick={() => remove(q)}
                  aria-label={dw('removeOf', { name: q.name })}
                >
                  {dw('remove')}
                </Button>
              </span>
            ),
          },
        ]
      : []),
  ];
  return (
    <section class="page mkt" data-testid="distribution">
      <PageHeader
        title={dw('title')}
        beta
        actions={admin && <Button onClick={() => setEditing('new')}>{dw('newQueue')}</Button>}
      >
        <p class="muted">{dw('intro')}</p>
      </PageHeader>
      {!admin && <p class="muted">{dw('adminsOnly')}</p>}
      <DataTable
        caption={dw('title')}
        testId="queue-list"
        columns={columns}
        rows={list.data}
        loading={list.isLoading}
        rowKey={(q) => q.documentId}
        rowAttrs={(q) => ({ 'data-queue-id': q.documentId })}
        empty={dw('empty')}
      />
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {editing && (
        <QueueEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          queue={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}
