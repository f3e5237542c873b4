import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, client, type Page, reason, unwrap } from '../api';
import { Link } from '../components/Link';
import { NotFound } from '../components/NotFound';
import { dateTime, t } from '../i18n';
import { timelineSentence } from '../lib/events';
import { code, w } from '../lib/words';
import { navigate } from '../router';
import { canWrite } from '../session';

interface Contact {
  documentId: string;
  name: string;
  email: string | null;
  phone: string | null;
  contact_type: string;
  city?: string | null;
  createdAt: string;
}
interface Activity {
  documentId: string;
  activityType: string;
  description: string;
  metadata?: Record<string, unknown> | null;
  performedAt: string;
}

export function ContactsPage({ contactId }: { contactId?: string }) {
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  useEffect(() => {
    const id = setTimeout(() => {
      setQuery(q.trim().length >= 3 ? q.trim() : '');
      setPage(1);
    }, 300);
    return () => clearTimeout(id);
  }, [q]);
  const list = useQuery({
    queryKey: ['contacts', query, page],
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/contacts', {
          params: {
            query: {
              ...(query ? { q: query } : {}),
              pagination: { page, pageSize: 25 },
              sort: 'createdAt:desc',
            } as never,
          },
        }),
      )) as unknown as Page<Contact>,
  });
  const pag = list.data?.meta.pagination;
  return (
    <section class="page split">
      <div>
        <h1>{t('contacts')}</h1>
        <label>
          <span class="sr-only">{t('searchContacts')}</span>
          <input
            type="search"
            name="q"
            placeholder={t('searchContacts')}
            value={q}
            onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          />
        </label>
        {list.error && (
          <p role="alert" class="error">
            {reason(list.error)}
          </p>
        )}
        <table class="table" data-testid="contacts-table">
          <thead>
            <tr>
              <th scope="col">{t('name')}</th>
              <th scope="col">{t('email')}</th>
              <th scope="col">{t('phone')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((c) => (
              <tr key={c.documentId} aria-selected={c.documentId === contactId}>
                <td>
                  <Link href={`/contacts/${c.documentId}`}>{c.name}</Link>
                </td>
                <td>{c.email}</td>
                <td>{c.phone}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {pag && pag.pageCount > 1 && (
          <nav class="pager" aria-label={w('pagination')}>
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              ‹
            </button>
            <span>
              {page} / {pag.pageCount}
            </span>
            <button type="button" disabled={page >= pag.pageCount} onClick={() => setPage(page + 1)}>
              ›
            </button>
          </nav>
        )}
        {canWrite() && <NewContactForm />}
      </div>
      {contactId && <ContactDetail id={contactId} />}
    </section>
  );
}

/** The new contact's form; the created contact opens. */
function NewContactForm() {
  const qc = useQueryClient();
  const [form, setForm] = useState({ name: '', email: '', phone: '' });
  const [error, setError] = useState('');
  const create = async (e: Event) => {
    e.preventDefault();
    setError('');
    try {
      const data = Object.fromEntries(Object.entries(form).filter(([, v]) => v.trim() !== ''));
      const c = (await unwrap(
        client.POST('/api/contacts', { body: { data } as never }),
      )) as unknown as Contact;
      setForm({ name: '', email: '', phone: '' });
      await qc.invalidateQueries({ queryKey: ['contacts'] });
      navigate(`/contacts/${c.documentId}`);
    } catch (err) {
      setError(reason(err));
    }
  };
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  return (
    <form class="card-form" onSubmit={create} aria-labelledby="new-contact">
      <h2 id="new-contact">{t('newContact')}</h2>
      <label>
        {t('name')}
        <input name="name" required value={form.name} onInput={set('name')} />
      </label>
      <label>
        {t('email')}
        <input name="email" type="email" value={form.email} onInput={set('email')} />
      </label>
      <label>
        {t('phone')}
        <input name="phone" type="tel" value={form.phone} onInput={set('phone')} />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit">{t('create')}</button>
    </form>
  );
}

function ContactDetail({ id }: { id: string }) {
  const contact = useQuery({
    queryKey: ['contact', id],
    queryFn: async () =>
      (await unwrap(client.GET('/api/contacts/{id}', { params: { path: { id } } }))) as unknown as Contact,
  });
  const timeline = useQuery({
    queryKey: ['contact-activities', id],
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/contacts/{id}/activities', {
          params: { path: { id }, query: { pagination: { pageSize: 50 } } as never },
        }),
      )) as unknown as Page<Activity>,
  });
  if (contact.error instanceof ApiError && contact.error.status === 404) return <NotFound />;
  const c = contact.data;
  return (
    <aside class="detail" aria-labelledby="contact-name" data-testid="contact-detail">
      <h2 id="contact-name">{c?.name ?? t('loading')}</h2>
      {c && (
        <dl class="kv">
          <dt>{t('email')}</dt>
          <dd>{c.email ?? '—'}</dd>
          <dt>{t('phone')}</dt>
          <dd>{c.phone ?? '—'}</dd>
          <dt>{w('contactType')}</dt>
          <dd>{code('ct', c.contact_type)}</dd>
        </dl>
      )}
      <h3>{t('timeline')}</h3>
      <ol class="timeline">
        {timeline.data?.data.map((a) => (
          <li key={a.documentId}>
            <span class="muted small">{dateTime(a.performedAt)}</span> {timelineSentence(a)}
          </li>
        ))}
        {timeline.data?.data.length === 0 && <li class="muted">{t('noItems')}</li>}
      </ol>
    </aside>
  );
}
