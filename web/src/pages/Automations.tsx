import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, featureOff, reason, unwrap } from '../api';
import { AutomationEditor } from '../components/automations/AutomationEditor';
import { type Automation, actionWord, aw, conditionWords, eventWord } from '../components/automations/model';
import { Runs } from '../components/automations/Runs';
import { FeatureOff } from '../components/FeatureOff';
import { dateTime } from '../i18n';
import { isAdmin } from '../lib/marketing';
import { list as listWords } from '../lib/words';
import { Badge, Button, type Column, confirmAction, DataTable, Dialog, PageHeader, toast } from '../ui';

/** Automations (BETA, admins): the list, create and edit, enable or disable, delete, and each one's runs. */
export function AutomationsPage() {
  const admin = isAdmin();
  const qc = useQueryClient();
  const list = useQuery({
    queryKey: ['automations'],
    enabled: admin,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/automations', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as Automation[],
  });
  const [editing, setEditing] = useState<Automation | 'new' | null>(null);
  const [runs, setRuns] = useState<Automation | null>(null);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const off = featureOff(list.error);
  if (off) return <FeatureOff feature={off} />;

  const toggle = async (a: Automation) => {
    setError('');
    try {
      await unwrap(
        a.enabled
          ? client.POST('/api/automations/{id}/disable', { params: { path: { id: a.documentId } } })
          : client.POST('/api/automations/{id}/enable', { params: { path: { id: a.documentId } } }),
      );
      toast(a.enabled ? aw('disabledToast') : aw('enabledToast'));
      await qc.invalidateQueries({ queryKey: ['automations'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const remove = async (a: Automation) => {
    const ok = await confirmAction({
      title: aw('removeTitle', { name: a.name }),
      text: aw('removeText'),
      confirmLabel: aw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/automations/{id}', { params: { path: { id: a.documentId } } }));
      toast(aw('removed'));
      await qc.invalidateQueries({ queryKey: ['automations'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Automation>[] = [
    { key: 'name', label: aw('name'), render: (a) => <strong>{a.name}</strong> },
    {
      key: 'when',
      label: aw('when'),
      render: (a) => (
        <>
          {eventWord(a.trigger.event)}
          {a.board && <span> · {aw('summaryOn', { board: a.board.name })}</span>}
          {a.trigger.conditions.length > 0 && (
            <span class="muted">
              {' '}
              ·{' '}
              {aw('summaryIf', { conditions: a.trigger.conditions.map((c) => conditionWords(c)).join('; ') })}
            </span>
          )}
        </>
      ),
    },
    {
      key: 'actions',
      label: aw('actions'),
      render: (a) => listWords(a.actions.map((x) => actionWord(x.type))),
    },
    {
      key: 'enabled',
      label: aw('state'),
      render: (a) => (
        <Badge tone={a.enabled ? 'success' : 'neutral'}>{a.enabled ? aw('on') : aw('off')}</Badge>
      ),
    },
    { key: 'updatedAt', label: aw('updated'), render: (a) => dateTime(a.updatedAt) },
    {
      key: 'do',
      label: aw('tableActions'),
      render: (a) => (
        <span class="ds-actions">
          <Button
            variant="secondary"
            onClick={() => setEditing(a)}
            aria-label={aw('editOf', { name: a.name })}
          >
            {aw('edit')}
          </Button>
          <Button variant="secondary" onClick={() => setRuns(a)} aria-label={aw('runsOf', { name: a.name })}>
            {aw('runs')}
          </Button>
          <Button
            variant="ghost"
            onClick={() => toggle(a)}
            aria-label={a.enabled ? aw('disableOf', { name: a.name }) : aw('enableOf', { name: a.name })}
          >
            {a.enabled ? aw('disable') : aw('enable')}
          </Button>
          <Button variant="ghost" onClick={() => remove(a)} aria-label={aw('removeOf', { name: a.name })}>
            {aw('remove')}
          </Button>
        </span>
      ),
    },
  ];
  return (
    <section class="page mkt" data-testid="automations">
      <PageHeader
        title={aw('title')}
        beta
        actions={admin && <Button onClick={() => setEditing('new')}>{aw('newAuto')}</Button>}
      >
        <p class="muted">{aw('intro')}</p>
      </PageHeader>
      {!admin ? (
        <p class="muted">{aw('adminsOnly')}</p>
      ) : (
        <DataTable
          caption={aw('title')}
          testId="automation-list"
          columns={columns}
          rows={list.data}
          loading={list.isLoading}
          rowKey={(a) => a.documentId}
          empty={aw('empty')}
        />
      )}
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {editing && (
        <AutomationEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          auto={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSecret={setSecret}
        />
      )}
      {runs && <Runs auto={runs} onClose={() => setRuns(null)} />}
      {secret && (
        <Dialog
          open
          title={aw('secretTitle')}
          onClose={() => setSecret('')}
          footer={<Button onClick={() => setSecret('')}>{aw('close')}</Button>}
        >
          <p>{aw('secretText')}</p>
          <p>
            <code data-testid="automation-secret" class="wh-url">
              {secret}
            </code>
          </p>
        </Dialog>
      )}
    </section>
  );
}
