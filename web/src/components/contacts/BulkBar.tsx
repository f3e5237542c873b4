import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { useMembers, useTeams } from '../../lib/directory';
import { isAdmin } from '../../lib/marketing';
import { personName } from '../../lib/people';
import { num } from '../../lib/words';
import { Button, confirmAction, Field, toast } from '../../ui';
import { type Contact, counted, cw } from './shared';

type Action = 'owner' | 'team' | 'contact_type';

/** Every contact the list's search matches (`total` of them), acted on by that search rather than by ids. */
export interface Matching {
  q: string;
  total: number;
}

/**
 * What the selected contacts can have done to them at once: an owner, a team or a type set
 * (POST /contacts/bulk-update), a merge (two or more), a delete (admins: POST /contacts/bulk-delete). With
 * `matching`, the selection is everything the search matches: both are sent the list's `q` (the service selects
 * by it as the list does) after a confirmation that names how many; a merge needs rows picked one by one.
 */
export function BulkBar({
  contacts,
  matching,
  onClear,
  onMerge,
}: {
  contacts: Contact[];
  matching: Matching | null;
  onClear: () => void;
  onMerge: () => void;
}) {
  const qc = useQueryClient();
  const members = useMembers();
  const teams = useTeams();
  const [action, setAction] = useState<Action>('owner');
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const ids = contacts.map((c) => c.documentId);
  const n = matching ? matching.total : ids.length;
  const selection = matching ? { q: matching.q } : { ids };
  const apply = async () => {
    if (matching) {
      const ok = await confirmAction({
        title: cw('bulkAllUpdateTitle', { n: num(n) }),
        text: cw('bulkAllUpdateText', {
          n: num(n),
          q: matching.q,
          field: cw(action === 'contact_type' ? 'type' : action),
          value: options.find(([v]) => v === value)?.[1] ?? '',
        }),
        confirmLabel: cw('bulkAllUpdateConfirm', { n: num(n) }),
      });
      if (!ok) return;
    }
    setError('');
    setBusy(true);
    try {
      const data = { [action]: value || null } as never;
      const r = await unwrap(client.POST('/api/contacts/bulk-update', { body: { ...selection, data } }));
      const count = r.updated ?? r.matched;
      toast(counted(count, 'bulkDone', 'bulkDoneMany'));
      await qc.invalidateQueries({ queryKey: ['contacts'] });
      await qc.invalidateQueries({ queryKey: ['contact'] });
      await qc.invalidateQueries({ queryKey: ['contact-activities'] });
      onClear();
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    const ok = await confirmAction({
      title: counted(n, 'bulkDeleteTitleOne', 'bulkDeleteTitle'),
      text: matching ? cw('bulkAllDeleteText', { n: num(n), q: matching.q }) : cw('bulkDeleteText'),
      confirmLabel: matching ? cw('bulkAllDeleteConfirm', { n: num(n) }) : cw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      const r = await unwrap(client.POST('/api/contacts/bulk-delete', { body: selection }));
      const count = r.deleted ?? r.matched;
      toast(counted(count, 'bulkDeleted', 'bulkDeletedMany'));
      await qc.invalidateQueries({ queryKey: ['contacts'] });
      onClear();
    } catch (err) {
      setError(reason(err));
    }
  };
  const options =
    action === 'owner'
      ? [['', cw('noOne')], ...(members.data ?? []).map((m) => [m.documentId, personName(m)])]
      : action === 'team'
        ? [['', cw('noTeam')], ...(teams.data ?? []).map((t) => [t.documentId, t.name])]
        : [
            ['pessoa', cw('type_pessoa')],
            ['empresa', cw('type_empresa')],
          ];
  return (
    <section class="ct-bulk" aria-label={cw('bulkTitle')} data-testid="bulk-bar">
      <strong>
        {matching ? cw('matchingCount', { n: num(n) }) : counted(n, 'selected', 'selectedMany')}
      </strong>
      <Field label={cw('bulkField')}>
        <select
          name="bulk-action"
          value={action}
          onChange={(e) => {
            const a = (e.target as HTMLSelectElement).value as Action;
            setAction(a);
            setValue(a === 'contact_type' ? 'pessoa' : '');
          }}
        >
          <option value="owner">{cw('bulkOwner')}</option>
          <option value="team">{cw('bulkTeam')}</option>
          <option value="contact_type">{cw('bulkType')}</option>
        </select>
      </Field>
      <Field label={cw('bulkValue')}>
        <select
          name="bulk-value"
          value={value}
          onChange={(e) => setValue((e.target as HTMLSelectElement).value)}
        >
          {options.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Button busy={busy} onClick={apply}>
        {cw('bulkApply')}
      </Button>
      {!matching && n >= 2 && (
        <Button variant="secondary" onClick={onMerge}>
          {cw('merge')}
        </Button>
      )}
      {isAdmin() && (
        <Button variant="danger" onClick={remove}>
          {cw('bulkDelete')}
        </Button>
      )}
      <Button variant="ghost" onClick={onClear}>
        {cw('clearSelection')}
      </Button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
