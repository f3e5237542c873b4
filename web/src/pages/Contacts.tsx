import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'preact/hooks';
import { client, type Page, reason, unwrap } from '../api';
import { BulkBar } from '../components/contacts/BulkBar';
import { ContactDetail } from '../components/contacts/ContactDetail';
import { ContactEditor } from '../components/contacts/ContactEditor';
import { ImportDialog } from '../components/contacts/ImportDialog';
import { shownName } from '../components/contacts/lgpd';
import { MergeDialog } from '../components/contacts/MergeDialog';
import { useContactSelection } from '../components/contacts/selection';
import { type Contact, cw, day, phoneText, typeWord } from '../components/contacts/shared';
import { Link } from '../components/Link';
import { refusalOf } from '../lib/marketing';
import { personName } from '../lib/people';
import { num } from '../lib/words';
import { navigate } from '../router';
import { canWrite } from '../session';
import {
  Avatar,
  Button,
  type Column,
  DataTable,
  Field,
  PageHeader,
  Pagination,
  type Sort,
  toast,
} from '../ui';

const PAGE_SIZE = 25;

/**
 * Contacts (issue 31 item 1): the list (search, sorting, pages), a contact's detail beside it, a quick new contact
 * and the full editor, a CSV import with its progress, and actions on the selected rows (owner, team, type, merge,
 * delete). A search whose whole page is selected offers every contact it matches, acted on by the same search.
 */
export function ContactsPage({ contactId }: { contactId?: string }) {
  const write = canWrite();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>({ key: 'createdAt', dir: 'desc' });
  const [merging, setMerging] = useState(false);
  const [importing, setImporting] = useState(false);
  useEffect(() => {
    const id = setTimeout(() => {
      setQuery(q.trim().length >= 3 ? q.trim() : '');
      setPage(1);
      selection.searchChanged();
    }, 300);
    return () => clearTimeout(id);
  }, [q]);
  const list = useQuery({
    queryKey: ['contacts', query, page, sort.key, sort.dir],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/contacts', {
          params: {
            query: {
              ...(query ? { q: query } : {}),
              pagination: { page, pageSize: PAGE_SIZE },
              sort: `${sort.key}:${sort.dir}`,
            } as never,
          },
        }),
      )) as unknown as Page<Contact>,
  });
  const rows = list.data?.data;
  const pag = list.data?.meta.pagination;
  const selection = useContactSelection({
    rows,
    query,
    typed: q,
    total: pag?.total,
    stale: list.isPlaceholderData,
  });
  const {
    selected,
    matching,
    toggle,
    pageAll,
    togglePage,
    offerAll,
    selectAllMatching,
    onlyThisPage,
    clear,
  } = selection;
  const columns: Column<Contact>[] = [
    ...(write
      ? [
          {
            key: 'select',
            label: cw('selectCol'),
            render: (c: Contact) => (
              <input
                type="checkbox"
                name={`select-${c.documentId}`}
                aria-label={cw('select', { name: shownName(c.name) })}
                checked={!!matching || selected.has(c.documentId)}
                onChange={(e) => toggle(c, (e.target as HTMLInputElement).checked)}
              />
            ),
          },
        ]
      : []),
    {
      key: 'name',
      label: cw('name'),
      sortable: true,
      render: (c) => <Link href={`/contacts/${c.documentId}`}>{shownName(c.name)}</Link>,
    },
    { key: 'contact_type', label: cw('type'), sortable: true, render: (c) => typeWord(c.contact_type) },
    { key: 'email', label: cw('email'), sortable: true, render: (c) => c.email ?? '' },
    { key: 'phone', label: cw('phone'), render: (c) => (c.phone ? phoneText(c.phone) : '') },
    { key: 'city', label: cw('city'), sortable: true, render: (c) => c.city ?? '' },
    {
      key: 'owner',
      label: cw('owner'),
      render: (c) =>
        c.owner ? (
          <span class="person">
            <Avatar user={c.owner.user} /> {personName(c.owner)}
          </span>
        ) : (
          ''
        ),
    },
    {
      key: 'createdAt',
      label: cw('createdAt'),
      sortable: true,
      render: (c) => day(c.createdAt.slice(0, 10)),
    },
  ];
  // Beside a contact's detail the list keeps the columns that tell contacts apart.
  const shown = contactId
    ? columns.filter((c) => !['contact_type', 'phone', 'createdAt'].includes(c.key))
    : columns;
  const count = selected.size;
  return (
    <section class={`page ct${contactId ? ' split' : ''}`} data-testid="contacts">
      <div class="ct-list">
        <PageHeader
          title={cw('title')}
          actions={
            write && (
              <Button variant="secondary" onClick={() => setImporting(true)}>
                {cw('import')}
              </Button>
            )
          }
        >
          <p class="muted">{cw('intro')}</p>
        </PageHeader>
        <div class="ct-toolbar">
          <Field label={cw('search')} class="ct-search">
            <input
              type="search"
              name="q"
              value={q}
              onInput={(e) => setQ((e.target as HTMLInputElement).value)}
            />
          </Field>
          {write && !!rows?.length && (
            <label class="ct-check">
              <input
                type="checkbox"
                name="select-page"
                checked={pageAll}
                onChange={(e) => togglePage((e.target as HTMLInputElement).checked)}
              />{' '}
              {cw('selectPage')}
            </label>
          )}
        </div>
        {write && offerAll && (
          <p class="ct-all" data-testid="select-all-matching">
            {cw('pageSelected', { n: num(rows?.length ?? 0) })}{' '}
            <Button variant="ghost" onClick={selectAllMatching}>
              {cw('selectAllMatching', { n: num(pag?.total ?? 0) })}
            </Button>
          </p>
        )}
        {matching && (
          <p class="ct-all" data-testid="all-matching">
            {cw('allMatchingSelected', { n: num(matching.total) })}{' '}
            <Button variant="ghost" onClick={onlyThisPage}>
              {cw('onlyThisPage')}
            </Button>
          </p>
        )}
        {write && (count > 0 || matching) && (
          <BulkBar
            contacts={[...selected.values()]}
            matching={matching}
            onClear={clear}
            onMerge={() => setMerging(true)}
          />
        )}
        {list.error && (
          <p role="alert" class="error">
            {reason(list.error)}
          </p>
        )}
        <DataTable
          caption={cw('listCaption')}
          testId="contacts-table"
          columns={shown}
          rows={rows}
          loading={list.isLoading}
          rowKey={(c) => c.documentId}
          rowAttrs={(c) => ({
            'data-contact-id': c.documentId,
            ...(c.documentId === contactId ? { 'aria-current': 'true', class: 'current' } : {}),
          })}
          sort={sort}
          onSort={(s) => {
            setSort(s);
            setPage(1);
          }}
          empty={query ? cw('emptySearch') : cw('empty')}
          footer={
            pag && (
              <div class="ct-foot">
                <span class="muted">{cw('total', { n: num(pag.total) })}</span>
                <Pagination page={page} pageCount={pag.pageCount} onPage={setPage} />
              </div>
            )
          }
        />
        {write && <QuickContact />}
      </div>
      {contactId && <ContactDetail key={contactId} id={contactId} />}
      {merging && count >= 2 && (
        <MergeDialog
          contacts={[...selected.values()]}
          onClose={() => setMerging(false)}
          onMerged={(c) => {
            setMerging(false);
            clear();
            navigate(`/contacts/${c.documentId}`);
          }}
        />
      )}
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
    </section>
  );
}

/** A new contact from its name, e-mail and phone; "all fields" opens the editor with what is typed. */
function QuickContact() {
  const qc = useQueryClient();
  const [form, setForm] = useState({ name: '', email: '', phone: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const [full, setFull] = useState(false);
  const create = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      const data = Object.fromEntries(Object.entries(form).filter(([, v]) => v.trim() !== ''));
      const c = (await unwrap(
        client.POST('/api/contacts', { body: { data } as never }),
      )) as unknown as Contact;
      setForm({ name: '', email: '', phone: '' });
      toast(cw('created'));
      await qc.invalidateQueries({ queryKey: ['contacts'] });
      navigate(`/contacts/${c.documentId}`);
    } catch (err) {
      const r = refusalOf(err, ['name', 'email', 'phone']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  return (
    <>
      <form class="card-form ct-quick" onSubmit={create} aria-labelledby="new-contact" noValidate>
        <h2 id="new-contact">{cw('quickNew')}</h2>
        <Field label={cw('name')} error={errors.name} required>
          <input name="name" value={form.name} onInput={set('name')} maxLength={200} />
        </Field>
        <Field label={cw('email')} error={errors.email}>
          <input name="email" type="email" value={form.email} onInput={set('email')} />
        </Field>
        <Field label={cw('phone')} error={errors.phone} hint={cw('phoneHint')}>
          <input name="phone" type="tel" value={form.phone} onInput={set('phone')} />
        </Field>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
        <div class="ds-actions">
          <Button submit busy={busy}>
            {cw('create')}
          </Button>
          <Button variant="secondary" onClick={() => setFull(true)}>
            {cw('allFields')}
          </Button>
        </div>
      </form>
      {full && (
        <ContactEditor
          contact={null}
          initial={{
            name: form.name,
            email: form.email || null,
            phone: form.phone || null,
          }}
          onClose={() => setFull(false)}
          onSaved={(c) => {
            setForm({ name: '', email: '', phone: '' });
            navigate(`/contacts/${c.documentId}`);
          }}
        />
      )}
    </>
  );
}
