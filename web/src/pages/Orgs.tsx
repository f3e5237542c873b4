import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { t } from '../i18n';
import { code } from '../lib/words';
import { navigate } from '../router';
import { getSession, type Role, setSession } from '../session';
import { Badge, Button, Field, PageHeader, Skeleton } from '../ui';

interface Org {
  documentId: string;
  name: string;
  slug: string;
  role: Role;
  plan: string;
}

export function OrgsPage() {
  const qc = useQueryClient();
  const orgs = useQuery({
    queryKey: ['organizations'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/organizations', { params: { query: { pagination: { pageSize: 100 } } as never } }),
        )
      ).data as unknown as Org[],
  });
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [error, setError] = useState('');
  const pick = (o: Org) => {
    const s = getSession()!;
    qc.clear();
    setSession({ ...s, org: { slug: o.slug, name: o.name, role: o.role, documentId: o.documentId } });
    navigate('/boards');
  };
  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const o = (await unwrap(
        client.POST('/api/organizations', { body: { data: { name, slug } } as never }),
      )) as unknown as Org;
      pick({ ...o, role: 'owner' });
    } catch (err) {
      setError(reason(err));
    }
  };
  return (
    <section class="page narrow">
      <PageHeader title={t('pickOrg')} />
      {orgs.isLoading && <Skeleton lines={2} />}
      <ul class="org-list">
        {orgs.data?.map((o) => (
          <li key={o.documentId}>
            <button type="button" class="org-pick" data-org={o.slug} onClick={() => pick(o)}>
              <strong>{o.name}</strong>{' '}
              <span class="muted">
                {o.slug} · {t(`role_${o.role}`)}
              </span>{' '}
              <Badge>{code('plan', o.plan)}</Badge>
            </button>
          </li>
        ))}
      </ul>
      <form class="card-form" onSubmit={create}>
        <h2>{t('newOrg')}</h2>
        <Field label={t('name')} required>
          <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label={t('slug')} required>
          <input
            pattern="[a-z0-9\-]+"
            value={slug}
            onInput={(e) => setSlug((e.target as HTMLInputElement).value)}
          />
        </Field>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <Button submit>{t('create')}</Button>
      </form>
    </section>
  );
}
