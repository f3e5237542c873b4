import { useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Board, client, unwrap } from '../../api';
import { t } from '../../i18n';
import { refusalOf } from '../../lib/marketing';
import { personName } from '../../lib/people';
import { Button, Field, toast } from '../../ui';
import { bw, useStructureRefresh } from './shared';

interface Member {
  documentId: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  user: { username: string; email: string; name?: string | null };
}

/**
 * Who works on the board: its owner, and per member of the organization whether they see it (member) or also
 * edit its cards (editor). Organization admins see every board anyway.
 */
export function PeopleSection({ board: b }: { board: Board }) {
  const refresh = useStructureRefresh(b.documentId);
  const memberships = useQuery({
    queryKey: ['memberships'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/memberships', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Member[],
  });
  const [owner, setOwner] = useState(b.owner?.documentId ?? '');
  const [members, setMembers] = useState(new Set(b.members.map((m) => m.documentId)));
  const [editors, setEditors] = useState(new Set(b.editors.map((m) => m.documentId)));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const flip = (set: Set<string>, id: string, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(id);
    else next.delete(id);
    return next;
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      await unwrap(
        client.PUT('/api/boards/{id}', {
          params: { path: { id: b.documentId } },
          body: { data: { owner: owner || null, members: [...members], editors: [...editors] } },
        }),
      );
      toast(bw('peopleSaved'));
      await refresh();
    } catch (err) {
      const r = refusalOf(err, ['owner']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  const list = memberships.data ?? [];
  return (
    <section class="be-section" id="be-people" aria-labelledby="be-people-h">
      <h2 id="be-people-h">{bw('secPeople')}</h2>
      <p class="muted">{bw('peopleIntro')}</p>
      <form noValidate onSubmit={save}>
        <Field label={bw('owner')} error={errors.owner}>
          <select
            name="board-owner"
            value={owner}
            onChange={(e) => setOwner((e.target as HTMLSelectElement).value)}
          >
            <option value="">{bw('noOwner')}</option>
            {list.map((m) => (
              <option key={m.documentId} value={m.documentId}>
                {personName(m)}
              </option>
            ))}
          </select>
        </Field>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to be scrolled by keys */}
        <section class="ds-table-box" aria-labelledby="be-people-h" tabIndex={0}>
          <table class="ds-table">
            <thead>
              <tr>
                <th scope="col">{bw('person')}</th>
                <th scope="col">{bw('orgRole')}</th>
                <th scope="col">{bw('seesBoard')}</th>
                <th scope="col">{bw('editsBoard')}</th>
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr key={m.documentId}>
                  <th scope="row">{personName(m)}</th>
                  <td>{t(`role_${m.role}`)}</td>
                  <td>
                    <input
                      type="checkbox"
                      name={`member-${m.documentId}`}
                      aria-label={bw('seesOf', { name: personName(m) })}
                      checked={members.has(m.documentId)}
                      onChange={(e) =>
                        setMembers(flip(members, m.documentId, (e.target as HTMLInputElement).checked))
                      }
                    />
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      name={`editor-${m.documentId}`}
                      aria-label={bw('editsOf', { name: personName(m) })}
                      checked={editors.has(m.documentId)}
                      onChange={(e) =>
                        setEditors(flip(editors, m.documentId, (e.target as HTMLInputElement).checked))
                      }
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
        <div class="ds-actions">
          <Button submit busy={busy}>
            {bw('savePeople')}
          </Button>
        </div>
      </form>
    </section>
  );
}
