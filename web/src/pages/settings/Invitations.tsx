import { useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { date, t } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { code } from '../../lib/words';
import type { Role } from '../../session';
import { Button, type Column, DataTable, Field } from '../../ui';
import * as catalogue from '../../words/settings';
import { type Run, roleLabel } from './run';

const sw = wordsOf(catalogue);
type Invitation = import('../../api').Schemas['Invitation'];

/** The organization's invitations (pending ones revoked) and the form inviting someone by e-mail. */
export function Invitations({ assignable, run }: { assignable: Role[]; run: Run }) {
  const invitations = useQuery({
    queryKey: ['invitations'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/invitations', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as Invitation[],
  });
  const columns: Column<Invitation>[] = [
    { key: 'email', label: t('email') },
    { key: 'role', label: t('role'), render: (inv) => roleLabel(inv.role) },
    { key: 'status', label: t('status'), render: (inv) => code('inv', inv.status) },
    { key: 'expiresAt', label: t('expires'), render: (inv) => date(inv.expiresAt) },
    {
      key: 'actions',
      label: t('actions'),
      render: (inv) =>
        inv.status === 'pending' && (
          <Button
            variant="ghost"
            aria-label={`${t('revoke')} ${inv.email}`}
            onClick={() =>
              run(
                () => client.DELETE('/api/invitations/{id}', { params: { path: { id: inv.documentId } } }),
                sw('invitationRevoked'),
              )
            }
          >
            {t('revoke')}
          </Button>
        ),
    },
  ];
  return (
    <>
      <h3>{t('invitations')}</h3>
      <DataTable
        caption={t('invitations')}
        testId="invitations"
        columns={columns}
        rows={invitations.data}
        loading={invitations.isLoading}
        rowKey={(inv) => inv.documentId}
        empty={t('noItems')}
      />
      <InviteForm assignable={assignable} run={run} />
    </>
  );
}

function InviteForm({ assignable, run }: { assignable: Role[]; run: Run }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [busy, setBusy] = useState(false);
  const invite = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const done = await run(
      () => client.POST('/api/memberships', { body: { data: { email, role } } }),
      t('invited'),
    );
    setBusy(false);
    if (done) setEmail('');
  };
  return (
    <form class="card-form" onSubmit={invite} aria-labelledby="invite-title" data-testid="invite-form">
      <h3 id="invite-title">{t('inviteMember')}</h3>
      <div class="row">
        <Field label={t('email')} required>
          <input
            name="invite-email"
            type="email"
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={t('role')}>
          <select
            name="invite-role"
            value={role}
            onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}
          >
            {assignable.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r)}
              </option>
            ))}
          </select>
        </Field>
        <Button submit busy={busy}>
          {t('invite')}
        </Button>
      </div>
    </form>
  );
}
