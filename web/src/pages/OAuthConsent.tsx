import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, reason } from '../api';
import { t } from '../i18n';
import { type ConsentRequest, oauthCall } from '../lib/oauth-api';
import { scopeList, scopeWords } from '../lib/scope-words';
import { getSession } from '../session';
import { Button } from '../ui';

const uidOfLink = () => new URLSearchParams(location.search).get('uid') ?? '';

/**
 * An application (a remote agent) asks to act for the signed-in person (docs/mcp.md "Sign-in"): who it is, the
 * tool server it will use, the organization, and its scopes in words. Allow sends the browser back through the
 * authorization server to the application with a code; Deny, with access_denied.
 */
export function OAuthConsentPage() {
  const uid = uidOfLink();
  const path = `/interactions/${encodeURIComponent(uid)}/consent`;
  const q = useQuery({
    queryKey: ['oauth-consent', uid],
    queryFn: () => oauthCall<ConsentRequest>('GET', path),
    retry: false,
  });
  const [org, setOrg] = useState(getSession()?.org?.slug ?? '');
  const decide = useMutation({
    mutationFn: (approve: boolean) =>
      oauthCall<{ redirectTo: string }>(
        'POST',
        path,
        approve ? { approve, organization: chosen } : { approve },
      ),
    onSuccess: ({ redirectTo }) => location.assign(redirectTo),
  });
  if (q.isPending) return <p class="page">{t('loading')}</p>;
  if (q.error)
    return (
      <p class="page error" role="alert">
        {q.error instanceof ApiError && q.error.status === 404 ? t('oauthExpired') : reason(q.error)}
      </p>
    );
  const r = q.data;
  const orgs = r.organizations;
  const chosen = orgs.some((o) => o.slug === org) ? org : (orgs[0]?.slug ?? '');
  return (
    <section class="page confirm oauth-consent" aria-labelledby="oauth-title">
      <h1 id="oauth-title">{t('oauthTitle')}</h1>
      <p>
        <strong data-testid="oauth-client">{r.client.name ?? t('oauthUnnamed')}</strong> {t('oauthAsks')}
      </p>
      <dl>
        <dt>{t('oauthClientId')}</dt>
        <dd>
          <code>{r.client.clientId}</code>
        </dd>
        {r.resource && (
          <>
            <dt>{t('oauthServer')}</dt>
            <dd>
              <code>{r.resource}</code>
            </dd>
          </>
        )}
      </dl>
      <label>
        {t('oauthOrg')}
        <select
          name="organization"
          value={chosen}
          onChange={(e) => setOrg((e.target as HTMLSelectElement).value)}
        >
          {orgs.map((o) => (
            <option key={o.slug} value={o.slug}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      <h2>{t('oauthScopes')}</h2>
      <ul data-testid="oauth-scopes">
        {scopeList(r.scopes).map((s) => (
          <li key={s} data-scope={s}>
            {scopeWords(s)}
          </li>
        ))}
      </ul>
      <p class="muted small">{t('oauthRoleNote')}</p>
      {decide.error && (
        <p class="error" role="alert">
          {reason(decide.error)}
        </p>
      )}
      {decide.isSuccess ? (
        <p role="status">{t('oauthLeaving')}</p>
      ) : (
        <div class="actions">
          <Button
            variant="primary"
            disabled={decide.isPending || !chosen}
            onClick={() => decide.mutate(true)}
          >
            {t('oauthAllow')}
          </Button>
          <Button variant="secondary" disabled={decide.isPending} onClick={() => decide.mutate(false)}>
            {t('oauthDeny')}
          </Button>
        </div>
      )}
    </section>
  );
}
