import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { t } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { refusalOf } from '../../lib/marketing';
import { getSession, setSession } from '../../session';
import { Button, Field, toast } from '../../ui';
import * as catalogue from '../../words/settings';
import { TimeZonePicker, zoneLabel } from './TimeZonePicker';

const sw = wordsOf(catalogue);
type Org = import('../../api').Schemas['Organization'];

/** The organization's name and time zone: changed by its owners and admins, shown read-only to the others. */
export function Organization() {
  const id = getSession()!.org!.documentId;
  const org = useQuery({
    queryKey: ['organization', id],
    queryFn: () =>
      unwrap(client.GET('/api/organizations/{id}', { params: { path: { id } } })) as Promise<Org>,
  });
  return (
    <section aria-labelledby="org-title" class="settings-block" data-testid="org-settings">
      <h2 id="org-title">{sw('organization')}</h2>
      {org.error && <p class="error">{reason(org.error)}</p>}
      {org.data &&
        (org.data.role === 'owner' || org.data.role === 'admin' ? (
          <OrganizationForm org={org.data} />
        ) : (
          <>
            <dl class="kv" data-testid="org-read-only">
              <dt>{sw('orgName')}</dt>
              <dd>{org.data.name}</dd>
              <dt>{sw('timeZone')}</dt>
              <dd translate={false}>{zoneLabel(org.data.timeZone)}</dd>
            </dl>
            <p class="muted small">{sw('orgReadOnly')}</p>
          </>
        ))}
    </section>
  );
}

function OrganizationForm({ org }: { org: Org }) {
  const qc = useQueryClient();
  const [name, setName] = useState(org.name);
  const [timeZone, setTimeZone] = useState(org.timeZone);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      const saved = (await unwrap(
        client.PUT('/api/organizations/{id}', {
          params: { path: { id: org.documentId } },
          body: { data: { name, timeZone } },
        }),
      )) as Org;
      qc.setQueryData(['organization', org.documentId], saved);
      // The header and the organization list show the new name.
      const s = getSession()!;
      setSession({ ...s, org: { ...s.org!, name: saved.name } });
      await qc.invalidateQueries({ queryKey: ['organizations'] });
      setName(saved.name);
      toast(sw('orgSaved'));
    } catch (err) {
      const r = refusalOf(err, ['name', 'timeZone']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card-form" noValidate onSubmit={save} aria-labelledby="org-title" data-testid="org-form">
      <Field label={sw('orgName')} error={errors.name} required>
        <input
          name="org-name"
          maxLength={120}
          autoComplete="organization"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </Field>
      <TimeZonePicker value={timeZone} onChange={setTimeZone} error={errors.timeZone} />
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
      <div>
        <Button submit busy={busy}>
          {t('save')}
        </Button>
      </div>
    </form>
  );
}
