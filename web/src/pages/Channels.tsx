import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, client, reason, unwrap } from '../api';
import { date } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { type Channel, isAdmin, refusalOf, useChannels } from '../lib/marketing';
import {
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  Dialog,
  Field,
  PageHeader,
  toast,
} from '../ui';
import * as catalogue from '../words/channels';

const cw = wordsOf(catalogue);
type Kind = Channel['type'];
type Words = keyof typeof catalogue.ptBR;

/** The fields of each kind of channel: [name, where it goes, its word, input type, required, hint]. */
const FIELDS: Record<
  Kind,
  {
    name: string;
    in: 'settings' | 'credentials';
    word: Words;
    type?: string;
    required?: boolean;
    hint?: Words;
  }[]
> = {
  whatsapp: [
    {
      name: 'phoneNumberId',
      in: 'settings',
      word: 'phoneNumberId',
      required: true,
      hint: 'phoneNumberIdHint',
    },
    { name: 'businessAccountId', in: 'settings', word: 'businessAccountId', required: true },
    { name: 'appId', in: 'settings', word: 'appId' },
    {
      name: 'accessToken',
      in: 'credentials',
      word: 'accessToken',
      type: 'password',
      required: true,
      hint: 'accessTokenHint',
    },
    { name: 'appSecret', in: 'credentials', word: 'appSecret', type: 'password', required: true },
    { name: 'verifyToken', in: 'credentials', word: 'verifyToken', type: 'password', required: true },
  ],
  email: [
    { name: 'fromName', in: 'settings', word: 'fromName', required: true },
    { name: 'fromAddress', in: 'settings', word: 'fromAddress', type: 'email', required: true },
    { name: 'replyTo', in: 'settings', word: 'replyTo', type: 'email' },
    { name: 'smtpUrl', in: 'credentials', word: 'smtpUrl', type: 'password', hint: 'smtpUrlHint' },
  ],
  sms: [
    { name: 'from', in: 'settings', word: 'smsFrom', required: true },
    { name: 'accountSid', in: 'credentials', word: 'accountSid', required: true },
    { name: 'authToken', in: 'credentials', word: 'authToken', type: 'password', required: true },
  ],
};

/** Channels (BETA): connect WhatsApp Cloud API, e-mail and SMS channels, see their health, disconnect them. */
export function ChannelsPage() {
  const list = useChannels();
  const [connecting, setConnecting] = useState(false);
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const qc = useQueryClient();
  const admin = isAdmin();
  const disconnect = async (c: Channel) => {
    const ok = await confirmAction({
      title: cw('disconnectTitle', { name: c.name }),
      text: cw('disconnectText'),
      confirmLabel: cw('disconnect'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/chat-channels/{id}', { params: { path: { id: c.documentId } } }));
      toast(cw('disconnected'));
      await qc.invalidateQueries({ queryKey: ['chat-channels'] });
    } catch (err) {
      // Campaigns still use it (details.channel): said in the chosen language.
      setError(err instanceof ApiError && err.details?.channel ? cw('inUse') : reason(err));
    }
  };
  const columns: Column<Channel>[] = [
    { key: 'name', label: cw('name'), render: (c) => <strong>{c.name}</strong> },
    { key: 'type', label: cw('kind'), render: (c) => cw(`kind_${c.type}`) },
    { key: 'health', label: cw('health'), render: (c) => <Health channel={c} /> },
    { key: 'boards', label: cw('boards'), render: (c) => c.boards.map((b) => b.name).join(', ') || '—' },
    { key: 'createdAt', label: cw('created'), render: (c) => date(c.createdAt) },
  ];
  if (admin)
    columns.push({
      key: 'actions',
      label: cw('actions'),
      render: (c) => (
        <Button
          variant="secondary"
          onClick={() => disconnect(c)}
          aria-label={cw('disconnectOf', { name: c.name })}
        >
          {cw('disconnect')}
        </Button>
      ),
    });
  return (
    <section class="page mkt" data-testid="channels">
      <PageHeader
        title={cw('title')}
        beta
        actions={admin && <Button onClick={() => setConnecting(true)}>{cw('connect')}</Button>}
      >
        <p class="muted">{cw('intro')}</p>
        {!admin && <p class="muted small">{cw('adminsOnly')}</p>}
      </PageHeader>
      {secret && (
        <div class="mkt-secret" role="status">
          <p>
            <strong>{cw('secretTitle')}</strong> {cw('secretText')}
          </p>
          <code>{secret}</code>
          <Button variant="secondary" onClick={() => setSecret('')}>
            {cw('secretStored')}
          </Button>
        </div>
      )}
      {error && (
        <p role="alert" class="error" data-testid="channels-error">
          {error}
        </p>
      )}
      <DataTable
        caption={cw('title')}
        columns={columns}
        rows={list.data}
        loading={list.isLoading}
        rowKey={(c) => c.documentId}
        empty={cw('empty')}
      />
      <ConnectDialog
        open={connecting}
        onClose={() => setConnecting(false)}
        onConnected={(c) => {
          setConnecting(false);
          if (c.webhookSecret) setSecret(c.webhookSecret);
        }}
      />
    </section>
  );
}

/** The channel's health, checked against its provider when shown (a real call) and again on demand. */
function Health({ channel }: { channel: Channel }) {
  const h = useQuery({
    queryKey: ['chat-channel-health', channel.documentId],
    queryFn: async () =>
      unwrap(client.GET('/api/chat-channels/{id}/health', { params: { path: { id: channel.documentId } } })),
    staleTime: 60_000,
    retry: false,
  });
  const status = h.data?.status;
  return (
    <span class="mkt-health" data-testid="channel-health">
      {h.isFetching ? (
        <Badge>{cw('checking')}</Badge>
      ) : (
        <Badge tone={status === 'ok' ? 'success' : status === 'error' ? 'danger' : 'neutral'}>
          {cw(status ? `health_${status}` : 'health_unknown')}
        </Badge>
      )}{' '}
      {h.data && !h.isFetching && (
        <span class="muted small">
          {status === 'ok' ? cw('healthOk', { ms: h.data.latencyMs }) : cw('healthError')}
          {status === 'error' && (
            <>
              {' '}
              {cw('providerSays')} <code>{h.data.message}</code>
            </>
          )}
        </span>
      )}
      {h.error && <span class="error small">{reason(h.error)}</span>}{' '}
      <Button variant="ghost" onClick={() => h.refetch()} aria-label={cw('checkOf', { name: channel.name })}>
        {cw('check')}
      </Button>
    </span>
  );
}

function ConnectDialog({
  open,
  onClose,
  onConnected,
}: {
  open: boolean;
  onClose: () => void;
  onConnected: (c: Channel) => void;
}) {
  const qc = useQueryClient();
  const [kind, setKind] = useState<Kind>('whatsapp');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [rate, setRate] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const fields = FIELDS[kind];
  const close = () => {
    setValues({});
    setName('');
    setErrors({});
    setGeneral('');
    onClose();
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral('');
    const pick = (where: 'settings' | 'credentials') =>
      Object.fromEntries(
        fields
          .filter((f) => f.in === where && values[f.name]?.trim())
          .map((f) => [f.name, values[f.name].trim()]),
      );
    const credentials = pick('credentials');
    try {
      const made = (await unwrap(
        client.POST('/api/chat-channels', {
          body: {
            data: {
              name: name.trim(),
              type: kind,
              settings: { ...pick('settings'), ...(rate ? { ratePerSecond: Number(rate) } : {}) },
              ...(Object.keys(credentials).length ? { credentials } : {}),
            },
          },
        }),
      )) as unknown as Channel;
      toast(cw('connected'));
      await qc.invalidateQueries({ queryKey: ['chat-channels'] });
      setValues({});
      setName('');
      onConnected(made);
    } catch (err) {
      const r = refusalOf(err, ['name', 'ratePerSecond', ...fields.map((f) => f.name)]);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      title={cw('connectTitle')}
      onClose={close}
      wide
      footer={
        <>
          <Button variant="secondary" onClick={close}>
            {cw('cancel')}
          </Button>
          <Button submit busy={busy} {...{ form: 'channel-form' }}>
            {cw('save')}
          </Button>
        </>
      }
    >
      <form id="channel-form" class="mkt-form" onSubmit={submit}>
        <Field label={cw('kind')}>
          <select
            name="kind"
            value={kind}
            onChange={(e) => {
              setKind((e.target as HTMLSelectElement).value as Kind);
              setErrors({});
            }}
          >
            {(['whatsapp', 'email', 'sms'] as const).map((k) => (
              <option key={k} value={k}>
                {cw(`kind_${k}`)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={cw('name')} required error={errors.name}>
          <input
            name="name"
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        {fields.map((f) => (
          <Field
            key={`${kind}-${f.name}`}
            label={cw(f.word)}
            required={f.required}
            error={errors[f.name]}
            hint={f.hint && cw(f.hint)}
          >
            <input
              name={f.name}
              type={f.type ?? 'text'}
              autoComplete={f.type === 'password' ? 'new-password' : 'off'}
              value={values[f.name] ?? ''}
              onInput={(e) => setValues({ ...values, [f.name]: (e.target as HTMLInputElement).value })}
            />
          </Field>
        ))}
        <Field label={cw('ratePerSecond')} error={errors.ratePerSecond}>
          <input
            name="ratePerSecond"
            type="number"
            min={1}
            max={1000}
            value={rate}
            onInput={(e) => setRate((e.target as HTMLInputElement).value)}
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
