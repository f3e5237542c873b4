import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { Profile } from '../components/Profile';
import { date, dateTime, t } from '../i18n';
import { initials, personName } from '../lib/people';
import { code } from '../lib/words';
import { getSession, type Role } from '../session';
import { confirmAction } from '../ui';
import { ConnectedApps } from './ConnectedApps';

type Schemas = import('../api').Schemas;
type Member = Schemas['Membership'];
type Invitation = Schemas['Invitation'];
type TokenBody = NonNullable<
  import('../../../generated/api-types').paths['/api/users/generate-token']['post']['requestBody']
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
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];
const roleLabel = (r: string) => t(`role_${r as Role}`);

/** Settings: the user's API tokens, the organization's members and invitations. */
export function SettingsPage() {
  return (
    <section class="page settings" data-testid="settings">
      <h1>{t('settings')}</h1>
      <Profile />
      <Tokens />
      <ConnectedApps />
      <Members />
    </section>
  );
}

function Tokens() {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [expiration, setExpiration] = useState<TokenBody['expiration']>('30d');
  const [scopes, setScopes] = useState<Record<string, '' | 'read' | 'write'>>({});
  const [secret, setSecret] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState('');
  const list = useQuery({
    queryKey: ['tokens'],
    queryFn: async () => (await unwrap(client.GET('/api/users/tokens'))).data as Token[],
  });
  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
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
      <TokenTable tokens={list.data} onRevoke={revoke} />
      <form class="card-form" onSubmit={create} aria-labelledby="new-token-title">
        <h3 id="new-token-title">{t('newToken')}</h3>
        <div class="row">
          <label>
            {t('name')}
            <input
              name="token-name"
              maxLength={120}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </label>
          <label>
            {t('expiresIn')}
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
          </label>
        </div>
        <ScopePicker scopes={scopes} onChange={setScopes} />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit">{t('createToken')}</button>
      </form>
    </section>
  );
}

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
      <label>
        {t('token')}
        <input
          readOnly
          value={secret.token}
          name="token-secret"
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
      </label>
      <div class="row">
        <button
          type="button"
          class="secondary"
          onClick={() => void navigator.clipboard?.writeText(secret.token)}
        >
          {t('copy')}
        </button>
        <button type="button" onClick={onStored}>
          {t('tokenStored')}
        </button>
      </div>
    </div>
  );
}

function TokenTable({ tokens, onRevoke }: { tokens?: Token[]; onRevoke: (tok: Token) => void }) {
  return (
    <table class="table" data-testid="tokens">
      <thead>
        <tr>
          <th scope="col">{t('name')}</th>
          <th scope="col">{t('prefix')}</th>
          <th scope="col">{t('scopes')}</th>
          <th scope="col">{t('expires')}</th>
          <th scope="col">{t('lastUsed')}</th>
          <th scope="col">
            <span class="sr-only">{t('actions')}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tokens?.map((tok) => (
          <tr key={tok.documentId} data-token-id={tok.documentId}>
            <td>{tok.name}</td>
            <td>
              <code>{tok.prefix}…</code>
            </td>
            <td class="small">{tok.scopes ? <code>{tok.scopes.join(', ')}</code> : t('allOfRole')}</td>
            <td>{date(tok.expiresAt)}</td>
            <td>{tok.lastUsedAt ? dateTime(tok.lastUsedAt) : '—'}</td>
            <td>
              <button
                type="button"
                class="link"
                onClick={() => onRevoke(tok)}
                aria-label={`${t('revoke')} ${tok.name}`}
              >
                {t('revoke')}
              </button>
            </td>
          </tr>
        ))}
        {tokens?.length === 0 && (
          <tr>
            <td colSpan={6} class="muted">
              {t('noItems')}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/** A new token's scopes: none, read or write per area (none picked: all of the person's role). */
function ScopePicker(props: {
  scopes: Record<string, '' | 'read' | 'write'>;
  onChange: (scopes: Record<string, '' | 'read' | 'write'>) => void;
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
                props.onChange({
                  ...scopes,
                  [a]: (e.target as HTMLSelectElement).value as '' | 'read' | 'write',
                })
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

/** One membership or invitation change; says what went wrong, or `ok`; true when done. */
type Run = (
  call: () => Promise<{ data?: unknown; error?: unknown; response: Response }>,
  ok?: string,
) => Promise<boolean>;

function Members() {
  const qc = useQueryClient();
  const s = getSession()!;
  const role = s.org?.role ?? 'viewer';
  const admin = role === 'owner' || role === 'admin';
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const members = useQuery({
    queryKey: ['memberships'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/memberships', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as Member[],
  });
  const invitations = useQuery({
    queryKey: ['invitations'],
    enabled: admin,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/invitations', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as Invitation[],
  });
  const run: Run = async (call, ok) => {
    setStatus(null);
    try {
      await unwrap(call());
      if (ok) setStatus({ kind: 'ok', text: ok });
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['memberships'] }),
        qc.invalidateQueries({ queryKey: ['invitations'] }),
      ]);
      return true;
    } catch (err) {
      setStatus({ kind: 'error', text: reason(err) });
      return false;
    }
  };
  // Owners give and take the owner role; admins the others (the service decides and says why it refuses).
  const assignable = ROLES.filter((r) => r !== 'owner' || role === 'owner');
  return (
    <section aria-labelledby="members-title" class="settings-block">
      <h2 id="members-title">{t('members')}</h2>
      {members.error && <p class="error">{reason(members.error)}</p>}
      <table class="table" data-testid="members">
        <thead>
          <tr>
            <th scope="col">{t('name')}</th>
            <th scope="col">{t('email')}</th>
            <th scope="col">{t('role')}</th>
            <th scope="col">
              <span class="sr-only">{t('actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.data?.map((m) => (
            <MemberRow
              key={m.documentId}
              m={m}
              manageable={admin && (m.role !== 'owner' || role === 'owner')}
              self={m.user.email === s.user.email}
              assignable={assignable}
              run={run}
            />
          ))}
        </tbody>
      </table>
      {status && (
        <p role={status.kind === 'error' ? 'alert' : 'status'} class={status.kind}>
          {status.text}
        </p>
      )}
      {admin && (
        <>
          <h3>{t('invitations')}</h3>
          <InvitationTable invitations={invitations.data} run={run} />
          <InviteForm assignable={assignable} run={run} />
        </>
      )}
      {!admin && <p class="muted small">{t('membersReadOnly')}</p>}
    </section>
  );
}

/** A member: its role, changed by an admin (an owner's, by an owner), and its removal (never one's own). */
function MemberRow(props: { m: Member; manageable: boolean; self: boolean; assignable: Role[]; run: Run }) {
  const { m, run } = props;
  return (
    <tr data-membership-id={m.documentId}>
      <td>
        <span class="avatar" aria-hidden="true">
          {initials(m.user)}
        </span>{' '}
        {personName(m)}
        {m.user.name && <span class="muted small"> @{m.user.username}</span>}
      </td>
      <td>{m.user.email}</td>
      <td>
        {props.manageable ? (
          <label>
            <span class="sr-only">
              {t('role')} {personName(m)}
            </span>
            <select
              name="member-role"
              value={m.role}
              onChange={(e) =>
                run(
                  () =>
                    client.PUT('/api/memberships/{id}', {
                      params: { path: { id: m.documentId } },
                      body: { data: { role: (e.target as HTMLSelectElement).value as Role } },
                    }),
                  t('saved'),
                )
              }
            >
              {props.assignable.map((r) => (
                <option key={r} value={r}>
                  {roleLabel(r)}
                </option>
              ))}
            </select>
          </label>
        ) : (
          roleLabel(m.role)
        )}
      </td>
      <td>
        {props.manageable && !props.self && (
          <button
            type="button"
            class="link"
            aria-label={`${t('removeMember')} ${personName(m)}`}
            onClick={async () =>
              (await confirmAction({ title: `${t('removeMember')} ${personName(m)}?`, danger: true })) &&
              run(() => client.DELETE('/api/memberships/{id}', { params: { path: { id: m.documentId } } }))
            }
          >
            {t('removeMember')}
          </button>
        )}
      </td>
    </tr>
  );
}

function InvitationTable({ invitations, run }: { invitations?: Invitation[]; run: Run }) {
  return (
    <table class="table" data-testid="invitations">
      <thead>
        <tr>
          <th scope="col">{t('email')}</th>
          <th scope="col">{t('role')}</th>
          <th scope="col">{t('status')}</th>
          <th scope="col">{t('expires')}</th>
          <th scope="col">
            <span class="sr-only">{t('actions')}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {invitations?.map((inv) => (
          <tr key={inv.documentId}>
            <td>{inv.email}</td>
            <td>{roleLabel(inv.role)}</td>
            <td>{code('inv', inv.status)}</td>
            <td>{date(inv.expiresAt)}</td>
            <td>
              {inv.status === 'pending' && (
                <button
                  type="button"
                  class="link"
                  aria-label={`${t('revoke')} ${inv.email}`}
                  onClick={() =>
                    run(() =>
                      client.DELETE('/api/invitations/{id}', {
                        params: { path: { id: inv.documentId } },
                      }),
                    )
                  }
                >
                  {t('revoke')}
                </button>
              )}
            </td>
          </tr>
        ))}
        {invitations?.length === 0 && (
          <tr>
            <td colSpan={5} class="muted">
              {t('noItems')}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

function InviteForm({ assignable, run }: { assignable: Role[]; run: Run }) {
  const [email, setEmail] = useState('');
  const [inviteRole, setInviteRole] = useState<Role>('member');
  const invite = async (e: Event) => {
    e.preventDefault();
    if (
      await run(
        () => client.POST('/api/memberships', { body: { data: { email, role: inviteRole } } }),
        t('invited'),
      )
    )
      setEmail('');
  };
  return (
    <form class="card-form" onSubmit={invite} aria-labelledby="invite-title" data-testid="invite-form">
      <h3 id="invite-title">{t('inviteMember')}</h3>
      <div class="row">
        <label>
          {t('email')}
          <input
            name="invite-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          {t('role')}
          <select
            name="invite-role"
            value={inviteRole}
            onChange={(e) => setInviteRole((e.target as HTMLSelectElement).value as Role)}
          >
            {assignable.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('invite')}</button>
      </div>
    </form>
  );
}
