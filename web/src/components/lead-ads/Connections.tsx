import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { date } from '../../i18n';
import { refusalOf } from '../../lib/marketing';
import { navigate } from '../../router';
import {
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  Dialog,
  Field,
  type Tone,
  toast,
} from '../../ui';
import { type Integration, lw, useIntegrations } from './model';

const TONE: Record<Integration['status'], Tone> = {
  connected: 'success',
  expired: 'warning',
  revoked: 'danger',
};

/** Where the provider sends the person back with `code` and `state` (this page, which completes the connection). */
const redirectUri = () => `${location.origin}/app/lead-ads`;

/** Starts the provider's OAuth flow (a new connection, or `integration` to reconnect): the browser goes there. */
async function startOAuth(integration?: string) {
  const r = await unwrap(
    client.POST('/api/lead-ads/oauth/start', {
      body: { data: { redirectUri: redirectUri(), ...(integration ? { integration } : {}) } },
    }),
  );
  location.assign(r.authorizationUrl);
}

/** The connected provider accounts: connect (OAuth or a token), reconnect, rename, disconnect. */
export function Connections({ admin }: { admin: boolean }) {
  const qc = useQueryClient();
  const list = useIntegrations();
  const [error, setError] = useState('');
  const [completing, setCompleting] = useState(false);
  const [tokenForm, setTokenForm] = useState(false);
  const [renaming, setRenaming] = useState<Integration | null>(null);
  const done = useRef(false);

  // Back from the provider: complete the flow with the code and state on the address, then drop them from it.
  useEffect(() => {
    const q = new URLSearchParams(location.search);
    const code = q.get('code');
    const state = q.get('state');
    if (done.current || !code || !state) return;
    done.current = true;
    setCompleting(true);
    navigate('/lead-ads', true);
    unwrap(client.POST('/api/lead-ads/oauth/complete', { body: { data: { code, state } } }))
      .then(async (i) => {
        toast(lw('connected', { name: i.name }));
        await qc.invalidateQueries({ queryKey: ['lead-integrations'] });
      })
      .catch((err) => setError(reason(err)))
      .finally(() => setCompleting(false));
  }, []);

  const go = async (integration?: string) => {
    setError('');
    try {
      await startOAuth(integration);
    } catch (err) {
      setError(reason(err));
    }
  };
  const remove = async (i: Integration) => {
    const ok = await confirmAction({
      title: lw('disconnectTitle', { name: i.name }),
      text: lw('disconnectText'),
      confirmLabel: lw('disconnect'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/lead-integrations/{id}', { params: { path: { id: i.documentId } } }));
      toast(lw('disconnected'));
      await qc.invalidateQueries({ queryKey: ['lead-integrations'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Integration>[] = [
    { key: 'name', label: lw('name'), render: (i) => <strong>{i.name}</strong> },
    { key: 'account', label: lw('account'), render: (i) => i.providerUserName ?? i.providerUserId },
    {
      key: 'pages',
      label: lw('pages'),
      render: (i) =>
        i.pages.map((p) => (
          <span key={p.id} class="la-page">
            {p.name}
            {p.subscribed && <span class="muted"> · {lw('pageSubscribed')}</span>}
          </span>
        )),
    },
    {
      key: 'status',
      label: lw('state'),
      render: (i) => (
        <>
          <Badge tone={TONE[i.status]}>{lw(`st_${i.status}`)}</Badge>
          {i.status !== 'connected' && i.statusMessage && (
            <>
              {' '}
              <code lang="en">{i.statusMessage}</code>
            </>
          )}
        </>
      ),
    },
    {
      key: 'expires',
      label: lw('expires'),
      render: (i) => (i.tokenExpiresAt ? date(i.tokenExpiresAt) : '—'),
    },
    ...(admin
      ? [
          {
            key: 'do',
            label: lw('tableActions'),
            render: (i: Integration) => (
              <span class="ds-actions">
                <Button
                  variant={i.status === 'connected' ? 'ghost' : 'primary'}
                  onClick={() => go(i.documentId)}
                  aria-label={lw('reconnectOf', { name: i.name })}
                >
                  {lw('reconnect')}
                </Button>
                <Button
                  variant="secondary"
                  onClick={() => setRenaming(i)}
                  aria-label={lw('renameOf', { name: i.name })}
                >
                  {lw('rename')}
                </Button>
                <Button
                  variant="ghost"
                  onClick={() => remove(i)}
                  aria-label={lw('disconnectOf', { name: i.name })}
                >
                  {lw('disconnect')}
                </Button>
              </span>
            ),
          } as Column<Integration>,
        ]
      : []),
  ];
  return (
    <section class="la-section" aria-labelledby="la-connections">
      <div class="la-head">
        <h2 id="la-connections">{lw('connections')}</h2>
        {admin && (
          <span class="ds-actions">
            <Button onClick={() => go()}>{lw('connect')}</Button>
            <Button variant="secondary" onClick={() => setTokenForm(true)}>
              {lw('connectToken')}
            </Button>
          </span>
        )}
      </div>
      {admin && <p class="muted">{lw('connectHint')}</p>}
      {completing && <p role="status">{lw('connecting')}</p>}
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      <DataTable
        caption={lw('connections')}
        testId="lead-integrations"
        columns={columns}
        rows={list.data}
        loading={list.isLoading}
        rowKey={(i) => i.documentId}
        empty={lw('noConnections')}
      />
      {tokenForm && <TokenForm onClose={() => setTokenForm(false)} />}
      {renaming && <Rename integration={renaming} onClose={() => setRenaming(null)} />}
    </section>
  );
}

/** Connect with a user token obtained elsewhere: sent once, never shown or read back. */
function TokenForm({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [token, setToken] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      const i = await unwrap(
        client.POST('/api/lead-integrations', {
          body: { data: { accessToken: token, ...(name.trim() ? { name: name.trim() } : {}) } },
        }),
      );
      toast(lw('connected', { name: i.name }));
      await qc.invalidateQueries({ queryKey: ['lead-integrations'] });
      onClose();
    } catch (err) {
      const r = refusalOf(err, ['name', 'accessToken']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={lw('tokenTitle')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {lw('cancel')}
          </Button>
          <Button submit busy={busy} form="lead-token-form">
            {lw('connect')}
          </Button>
        </>
      }
    >
      <form id="lead-token-form" class="mkt-form" onSubmit={save}>
        <p>{lw('tokenText')}</p>
        <Field label={lw('accessToken')} required error={errors.accessToken}>
          <input
            name="lead-token"
            type="password"
            autoComplete="off"
            maxLength={4000}
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={lw('connName')} hint={lw('connNameHint')} error={errors.name}>
          <input
            name="lead-connection-name"
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}

function Rename({ integration, onClose }: { integration: Integration; onClose: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(integration.name);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      await unwrap(
        client.PUT('/api/lead-integrations/{id}', {
          params: { path: { id: integration.documentId } },
          body: { data: { name } },
        }),
      );
      toast(lw('renamed'));
      await qc.invalidateQueries({ queryKey: ['lead-integrations'] });
      onClose();
    } catch (err) {
      const r = refusalOf(err, ['name']);
      setError(r.fields.name ?? r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={lw('renameTitle')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {lw('cancel')}
          </Button>
          <Button submit busy={busy} form="lead-rename-form">
            {lw('save')}
          </Button>
        </>
      }
    >
      <form id="lead-rename-form" class="mkt-form" onSubmit={save}>
        <Field label={lw('connName')} required error={error}>
          <input
            name="lead-rename"
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
      </form>
    </Dialog>
  );
}
