import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { reason } from '../api';
import { date, t } from '../i18n';
import { type ConnectedApplication, oauthCall } from '../lib/oauth-api';
import { scopeList, scopeWords } from '../lib/scope-words';
import { Button, EmptyState } from '../ui';

/** Settings: the applications the person connected with OAuth, each disconnected at once (its tokens get 401). */
export function ConnectedApps() {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['oauth-applications'],
    queryFn: () => oauthCall<{ data: ConnectedApplication[] }>('GET', '/applications'),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => oauthCall('DELETE', `/applications/${encodeURIComponent(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['oauth-applications'] }),
  });
  const apps = q.data?.data;
  return (
    <section aria-labelledby="connected-apps" data-testid="connected-apps" class="settings-block">
      <h2 id="connected-apps">{t('connectedApps')}</h2>
      <p class="muted small">{t('connectedAppsText')}</p>
      {(q.error || revoke.error) && (
        <p class="error" role="alert">
          {reason(q.error ?? revoke.error)}
        </p>
      )}
      {revoke.isSuccess && <p role="status">{t('disconnected')}</p>}
      {apps && !apps.length && <EmptyState text={t('connectedAppsNone')} />}
      {apps && apps.length > 0 && (
        <ul class="connected-apps">
          {apps.map((a) => (
            <li key={a.id} data-app={a.id}>
              <strong>{a.name ?? a.clientId}</strong>
              {a.organization && <span> · {a.organization.name}</span>}
              <span class="muted small">
                {' '}
                · {t('connectedSince')} {date(a.createdAt)}
              </span>
              <ul class="muted small">
                {scopeList(a.scopes).map((s) => (
                  <li key={s}>{scopeWords(s)}</li>
                ))}
              </ul>
              <Button variant="secondary" busy={revoke.isPending} onClick={() => revoke.mutate(a.id)}>
                {t('disconnect')}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
