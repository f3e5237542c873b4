import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, reason, unwrap } from '../api';
import { NotFound } from '../components/NotFound';
import { dateTime, t } from '../i18n';
import { Button } from '../ui';

type Confirmation = import('../api').Schemas['AgentConfirmation'];

/** The organization of the request comes in the link (`?org=slug`), whichever organization is picked here. */
const orgOfLink = () => new URLSearchParams(location.search).get('org') ?? '';

/**
 * An agent (the MCP tool server) asks the signed-in person to approve one change: what it will do, the exact
 * arguments and what the service answered to its dry run. Only a session can decide (docs/mcp.md).
 */
export function ConfirmPage({ id }: { id: string }) {
  const org = orgOfLink();
  const headers = org ? { 'x-tenant-id': org } : {};
  const qc = useQueryClient();
  const key = ['agent-confirmation', org, id];
  const q = useQuery({
    queryKey: key,
    queryFn: () => unwrap(client.GET('/api/agent-confirmations/{id}', { params: { path: { id } }, headers })),
    retry: false,
  });
  const decide = useMutation({
    mutationFn: (action: 'approve' | 'decline') =>
      unwrap(
        action === 'approve'
          ? client.POST('/api/agent-confirmations/{id}/approve', { params: { path: { id } }, headers })
          : client.POST('/api/agent-confirmations/{id}/decline', { params: { path: { id } }, headers }),
      ),
    onSuccess: (data) => qc.setQueryData(key, data),
  });

  if (q.isPending) return <p class="page">{t('loading')}</p>;
  if (q.error) {
    if (q.error instanceof ApiError && (q.error.status === 404 || q.error.status === 403))
      return <NotFound />;
    return (
      <p class="page error" role="alert">
        {reason(q.error)}
      </p>
    );
  }
  const c = q.data;
  return (
    <section class="page confirm" aria-labelledby="confirm-title" data-confirmation-status={c.status}>
      <h1 id="confirm-title">{t('confirmTitle')}</h1>
      <ConfirmationDetails c={c} org={org} />
      {c.status === 'pending' ? (
        <div class="actions">
          <Button variant="primary" disabled={decide.isPending} onClick={() => decide.mutate('approve')}>
            {t('confirmApprove')}
          </Button>
          <Button variant="secondary" disabled={decide.isPending} onClick={() => decide.mutate('decline')}>
            {t('confirmDecline')}
          </Button>
        </div>
      ) : (
        <p class="confirm-outcome" role="status">
          {t(`confirm_${c.status}` as 'confirm_approved')}
        </p>
      )}
      {decide.error && (
        <p class="error" role="alert">
          {reason(decide.error)}
        </p>
      )}
    </section>
  );
}

/** What the agent asks: the summary, the tool, the organization, the expiry, the arguments and its dry run's answer. */
function ConfirmationDetails({ c, org }: { c: Confirmation; org: string }) {
  const preview = (c.preview as { data?: unknown } | null)?.data ?? c.preview;
  return (
    <>
      <p class="confirm-summary">
        <strong>{c.summary}</strong>
      </p>
      <dl class="confirm-meta">
        <dt>{t('confirmTool')}</dt>
        <dd>
          <code>{c.tool}</code>
        </dd>
        <dt>{t('confirmOrg')}</dt>
        <dd>{org}</dd>
        <dt>{t('confirmExpires')}</dt>
        <dd>{dateTime(c.expiresAt)}</dd>
      </dl>
      <h2>{t('confirmArguments')}</h2>
      <pre class="confirm-json">{JSON.stringify(c.arguments, null, 2)}</pre>
      {preview != null && (
        <details>
          <summary>{t('confirmPreview')}</summary>
          <pre class="confirm-json">{JSON.stringify(preview, null, 2)}</pre>
        </details>
      )}
    </>
  );
}
