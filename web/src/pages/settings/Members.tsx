import { useQuery, useQueryClient } from '@tanstack/react-query';
import { client, reason, unwrap } from '../../api';
import { t } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { isMe } from '../../lib/board-access';
import { personName } from '../../lib/people';
import { getSession, type Role } from '../../session';
import { Avatar, Button, type Column, confirmAction, DataTable, toast } from '../../ui';
import * as catalogue from '../../words/settings';
import { Invitations } from './Invitations';
import { type Run, roleLabel } from './run';

const sw = wordsOf(catalogue);
type Member = import('../../api').Schemas['Membership'];
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

/** The organization's members (roles changed and members removed by admins) and, for admins, its invitations. */
export function Members() {
  const qc = useQueryClient();
  const s = getSession()!;
  const role = s.org?.role ?? 'viewer';
  const admin = role === 'owner' || role === 'admin';
  const members = useQuery({
    queryKey: ['memberships'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/memberships', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as Member[],
  });
  const run: Run = async (call, ok) => {
    try {
      await unwrap(call());
      if (ok) toast(ok);
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['memberships'] }),
        qc.invalidateQueries({ queryKey: ['invitations'] }),
      ]);
      return true;
    } catch (err) {
      toast(reason(err), 'error');
      return false;
    }
  };
  // Owners give and take the owner role; admins the others (the service decides and says why it refuses).
  const assignable = ROLES.filter((r) => r !== 'owner' || role === 'owner');
  const manageable = (m: Member) => admin && (m.role !== 'owner' || role === 'owner');
  const columns: Column<Member>[] = [
    {
      key: 'name',
      label: t('name'),
      render: (m) => (
        <span class="person">
          <Avatar user={m.user} /> {personName(m)}
          {m.user.name && <span class="muted small"> @{m.user.username}</span>}
        </span>
      ),
    },
    { key: 'email', label: t('email'), render: (m) => m.user.email },
    {
      key: 'role',
      label: t('role'),
      render: (m) =>
        manageable(m) ? <RolePicker m={m} assignable={assignable} run={run} /> : roleLabel(m.role),
    },
    {
      key: 'actions',
      label: t('actions'),
      render: (m) =>
        manageable(m) &&
        !isMe(m) && (
          <Button
            variant="ghost"
            aria-label={`${t('removeMember')} ${personName(m)}`}
            onClick={async () =>
              (await confirmAction({ title: `${t('removeMember')} ${personName(m)}?`, danger: true })) &&
              run(
                () => client.DELETE('/api/memberships/{id}', { params: { path: { id: m.documentId } } }),
                sw('memberRemoved'),
              )
            }
          >
            {t('removeMember')}
          </Button>
        ),
    },
  ];
  return (
    <section aria-labelledby="members-title" class="settings-block">
      <h2 id="members-title">{t('members')}</h2>
      {members.error && <p class="error">{reason(members.error)}</p>}
      <DataTable
        caption={t('members')}
        testId="members"
        columns={columns}
        rows={members.data}
        loading={members.isLoading}
        rowKey={(m) => m.documentId}
        rowAttrs={(m) => ({ 'data-membership-id': m.documentId })}
      />
      {admin ? (
        <Invitations assignable={assignable} run={run} />
      ) : (
        <p class="muted small">{t('membersReadOnly')}</p>
      )}
    </section>
  );
}

/** A member's role, changed by an admin (an owner's, by an owner). */
function RolePicker({ m, assignable, run }: { m: Member; assignable: Role[]; run: Run }) {
  return (
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
        {assignable.map((r) => (
          <option key={r} value={r}>
            {roleLabel(r)}
          </option>
        ))}
      </select>
    </label>
  );
}
