import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { date, dateTime, t } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { Button, type Column, confirmAction, DataTable, Field, toast } from '../../ui';
import * as catalogue from '../../words/settings';

const sw = wordsOf(catalogue);

type TokenBody = NonNullable<
  import('../../../../generated/api-types').paths['/api/users/generate-token']['post']['requestBody']
>['content']['application/json'];
type Scope = NonNullable<TokenBody['scopes']>[number];
type ScopeArea = Scope extends `${infer A}:${string}` ? A : never;
interface Token {
  documentId: string;
  name: string;
  prefix: string;
  expiresAt: string;
  scopes: string[] | null;
  lastUsedAt: string | null;
  createdAt: string;
}

/** The scope areas of the service's closed catalogue (src/platform/auth/scopes.ts); typed against the OpenAPI enum. */
const AREAS: ScopeArea[] = [
  'account',
  'members',
  'teams',
  'boards',
  'cards',
  'contacts',
  'segments',
  'tasks',
  'products',
  'quotes',
  'notifications',
  'channels',
  'email_templates',
  'campaigns',
  'chat',
  'agenda',
  'lead_ads',
  'automations',
  'webhooks',
  'distribution',
  'saved_filters',
  'conversions',
];
const EXPIRATIONS = ['1d', '30d', '365d', '36500d'] as const satisfies readonly TokenBody['expiration'][];
type Level = '' | 'read' | 'write';

/** The person's API tokens: the list, a new one (its secret shown once), revoking one. */
export function Tokens() {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [expiration, setExpiration] = useState<TokenBody['expiration']>('30d');
  const [scopes, setScopes] = useState<Record<string, Level>>({});
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const list = useQuery({
    queryKey: ['tokens'],
    queryFn: async () => (await unwrap(client.GET('/api/users/tokens'))).data as Token[],
  });
  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    const picked = Object.entries(scopes)
      .filter(([, v]) => v)
      .map(([a, v]) => `${a}:${v}` as Scope);
    try {
      const made = await unwrap(
        client.POST('/api/users/generate-token', {
          body: {
            expiration,
            ...(name.trim() ? { name: name.trim() } : {}),
            ...(picked.length ? { scopes: picked } : {}),
          },
        }),
      );
      setSecret({ name: made.name, token: made.token });
      setName('');
      setScopes({});
      await qc.invalidateQueries({ queryKey: ['tokens'] });
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (tok: Token) => {
    if (!(await confirmAction({ title: `${t('revokeConfirm')} ${tok.name}?`, danger: true }))) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/users/tokens/{id}', { params: { path: { id: tok.documentId } } }));
      await qc.invalidateQueries({ queryKey: ['tokens'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  return (
    <section aria-labelledby="tokens-title" class="settings-block">
      <h2 id="tokens-title">{t('apiTokens')}</h2>
      <p class="muted small">{t('apiTokensText')}</p>
      {secret && <TokenSecret secret={secret} onStored={() => setSecret(null)} />}
      <DataTable
        caption={t('apiTokens')}
        testId="tokens"
        columns={tokenColumns(revoke)}
        rows={list.data}
        loading={list.isLoading}
        rowKey={(tok) => tok.documentId}
        rowAttrs={(tok) => ({ 'data-token-id': tok.documentId })}
        empty={t('noItems')}
      />
      <form class="card-form" onSubmit={create} aria-labelledby="new-token-title">
        <h3 id="new-token-title">{t('newToken')}</h3>
        <div class="row">
          <Field label={t('name')}>
            <input
              name="token-name"
              maxLength={120}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Field label={t('expiresIn')}>
            <select
              name="token-expiration"
              value={expiration}
              onChange={(e) =>
                setExpiration((e.target as HTMLSelectElement).value as TokenBody['expiration'])
              }
            >
              {EXPIRATIONS.map((x) => (
                <option key={x} value={x}>
                  {t(`exp_${x}`)}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <ScopePicker scopes={scopes} onChange={setScopes} />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <Button submit busy={busy}>
          {t('createToken')}
        </Button>
      </form>
    </section>
  );
}

const tokenColumns = (onRevoke: (tok: Token) => void): Column<Token>[] => [
  { key: 'name', label: t('name') },
  { key: 'prefix', label: t('prefix'), render: (tok) => <code>{tok.prefix}…</code> },
  {
    key: 'scopes',
    label: t('scopes'),
    render: (tok) => (tok.scopes ? <code class="small">{tok.scopes.join(', ')}</code> : t('allOfRole')),
  },
  { key: 'expiresAt', label: t('expires'), render: (tok) => date(tok.expiresAt) },
  {
    key: 'lastUsedAt',
    label: t('lastUsed'),
    render: (tok) => (tok.lastUsedAt ? dateTime(tok.lastUsedAt) : '—'),
  },
  {
    key: 'actions',
    label: t('actions'),
    render: (tok) => (
      <Button variant="ghost" onClick={() => onRevoke(tok)} aria-label={`${t('revoke')} ${tok.name}`}>
        {t('revoke')}
      </Button>
    ),
  },
];

/** A new token's secret, shown this once: copied or stored, then dismissed. */
function TokenSecret({
  secret,
  onStored,
}: {
  secret: { name: string; token: string };
  onStored: () => void;
}) {
  return (
    <div class="ok secret" role="status" data-testid="token-secret">
      <p>
        {t('tokenShownOnce')} <strong>{secret.name}</strong>
      </p>
      <Field label={t('token')}>
        <input
          readOnly
          value={secret.token}
          name="token-secret"
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
      </Field>
      <div class="ds-actions">
        <Button
          variant="secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(secret.token);
            toast(sw('copied'));
          }}
        >
          {t('copy')}
        </Button>
        <Button onClick={onStored}>{t('tokenStored')}</Button>
      </div>
    </div>
  );
}

/** A new token's scopes: none, read or write per area (none picked: all of the person's role). */
function ScopePicker(props: {
  scopes: Record<string, Level>;
  onChange: (scopes: Record<string, Level>) => void;
}) {
  const { scopes } = props;
  return (
    <details>
      <summary>{t('scopes')}</summary>
      <p class="muted small">{t('scopesText')}</p>
      <div class="scopes">
        {AREAS.map((a) => (
          <label key={a}>
            {/* The service's scope names, as a token's scopes are written (`contacts:read`). */}
            <code>{a}</code>
            <select
              name={`scope-${a}`}
              value={scopes[a] ?? ''}
              onChange={(e) =>
                props.onChange({ ...scopes, [a]: (e.target as HTMLSelectElement).value as Level })
              }
            >
              <option value="">—</option>
              <option value="read">{t('read')}</option>
              <option value="write">{t('write')}</option>
            </select>
          </label>
        ))}
      </div>
    </details>
  );
}
