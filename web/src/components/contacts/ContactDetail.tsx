import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, client, type Page, reason, unwrap } from '../../api';
import { dateTime } from '../../i18n';
import { timelineSentence } from '../../lib/events';
import { isAdmin, refusalOf } from '../../lib/marketing';
import { list } from '../../lib/words';
import { navigate } from '../../router';
import { canWrite } from '../../session';
import { Button, confirmAction, Field, Skeleton, toast } from '../../ui';
import { StartConversation, scw } from '../inbox/StartConversation';
import { NotFound } from '../NotFound';
import { CallLog } from './CallLog';
import { Consents } from './Consents';
import { ContactEditor } from './ContactEditor';
import { customText } from './CustomFields';
import { shownName } from './lgpd';
import { Privacy } from './Privacy';
import { type Contact, cw, fieldWord, valueText } from './shared';

interface Activity {
  documentId: string;
  activityType: string;
  description: string;
  metadata?: Record<string, any> | null;
  performedAt: string;
}

const SHOWN = [
  'contact_type',
  'email',
  'phone',
  'cpf',
  'cnpj',
  'address',
  'city',
  'state',
  'country',
  'postal_code',
  'birthdate',
  'first_buy_date',
  'owner',
  'team',
];

/** A timeline entry in words: changes and merges by this area's words, the rest (calls too) by lib/events. */
function sentence(a: Activity): string {
  const m = a.metadata ?? {};
  if (a.activityType === 'contact_updated' && m.action === 'merge') {
    const names = list((m.merged ?? []).map((x: { name: string }) => x.name));
    const filled = (m.filled ?? []) as string[];
    return filled.length
      ? cw('tl_mergedFilled', { names, fields: list(filled.map(fieldWord)) })
      : cw('tl_merged', { names });
  }
  if (a.activityType === 'contact_updated' && Array.isArray(m.fields) && m.fields.length)
    return cw('tl_updated', { fields: list(m.fields.map((f: string) => fieldWord(f))) });
  return timelineSentence(a);
}

/**
 * One contact: every attribute, edit and delete, its timeline (a note or a call added to it), its consents and
 * (admins) its LGPD rights.
 */
export function ContactDetail({ id }: { id: string }) {
  const qc = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [writing, setWriting] = useState(false);
  const [error, setError] = useState('');
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
  const remove = async () => {
    if (!c) return;
    const ok = await confirmAction({
      title: cw('removeTitle'),
      text: cw('removeText', { name: shownName(c.name) }),
      confirmLabel: cw('remove'),
      danger: true,
    });
    if (!ok) return;
    try {
      await unwrap(client.DELETE('/api/contacts/{id}', { params: { path: { id } } }));
      toast(cw('removed'));
      await qc.invalidateQueries({ queryKey: ['contacts'] });
      navigate('/contacts');
    } catch (err) {
      setError(reason(err));
    }
  };
  const custom = Object.entries(c?.customFields ?? {});
  return (
    <aside class="detail ct-detail" aria-labelledby="contact-name" data-testid="contact-detail">
      <header class="ct-detail-head">
        <h2 id="contact-name">{c ? shownName(c.name) : cw('title')}</h2>
        {c && canWrite() && (
          <span class="ds-actions">
            <Button variant="secondary" onClick={() => setEditing(true)}>
              {cw('edit')}
            </Button>
            <Button variant="secondary" onClick={() => setWriting(true)}>
              {scw('sendWhatsapp')}
            </Button>
            <Button variant="ghost" onClick={remove}>
              {cw('remove')}
            </Button>
          </span>
        )}
      </header>
      {!c ? (
        <Skeleton lines={5} />
      ) : (
        <dl class="kv">
          {SHOWN.map((f) => {
            const v = valueText(c, f);
            return v ? (
              <Fragment key={f}>
                <dt>{fieldWord(f)}</dt>
                <dd data-field={f}>{v}</dd>
              </Fragment>
            ) : null;
          })}
          {custom.map(([k, v]) => (
            <Fragment key={`c-${k}`}>
              <dt>{k}</dt>
              <dd data-custom={k}>{customText(v)}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <h3>{cw('timeline')}</h3>
      <ol class="timeline">
        {timeline.data?.data.map((a) => (
          <li key={a.documentId}>
            <span class="muted small">{dateTime(a.performedAt)}</span> {sentence(a)}
          </li>
        ))}
        {timeline.data?.data.length === 0 && <li class="muted">{cw('noTimeline')}</li>}
      </ol>
      {c && canWrite() && <NoteForm id={id} />}
      {c && canWrite() && <CallLog id={id} />}
      <Consents id={id} />
      {c && isAdmin() && <Privacy contact={c} />}
      {editing && c && <ContactEditor contact={c} onClose={() => setEditing(false)} />}
      {c && canWrite() && (
        <StartConversation
          open={writing}
          onClose={() => setWriting(false)}
          contact={{ documentId: c.documentId, name: shownName(c.name), phone: c.phone ?? null }}
        />
      )}
    </aside>
  );
}

/** A note on the contact's timeline (POST /contacts/{id}/notes). */
function NoteForm({ id }: { id: string }) {
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const add = async (e: Event) => {
    e.preventDefault();
    setError('');
    if (!text.trim()) return setError(cw('noteEmpty'));
    setBusy(true);
    try {
      await unwrap(
        client.POST('/api/contacts/{id}/notes', {
          params: { path: { id } },
          body: { data: { description: text } } as never,
        }),
      );
      setText('');
      toast(cw('noteAdded'));
      await qc.invalidateQueries({ queryKey: ['contact-activities', id] });
    } catch (err) {
      setError(refusalOf(err, ['description']).fields.description ?? reason(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="ct-note" onSubmit={add} noValidate>
      <Field label={cw('note')} error={error}>
        <textarea
          name="contact-note"
          rows={2}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
      </Field>
      <Button submit variant="secondary" busy={busy}>
        {cw('addNote')}
      </Button>
    </form>
  );
}
