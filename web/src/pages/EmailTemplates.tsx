import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, client, reason, unwrap } from '../api';
import { dateTime } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { isAdmin, refusalOf, useChannels } from '../lib/marketing';
import { Button, type Column, confirmAction, DataTable, Dialog, Field, toast } from '../ui';
import * as catalogue from '../words/templates';

const tw = wordsOf(catalogue);

export interface EmailTemplate {
  documentId: string;
  name: string;
  subject: string;
  html: string;
  text: string | null;
  variables: string[];
  updatedAt: string;
}

/** The organization's e-mail templates. */
export function useEmailTemplates() {
  return useQuery({
    queryKey: ['email-templates'],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/email-templates', {
            params: { query: { pagination: { pageSize: 100 }, sort: 'name:asc' } as never },
          }),
        )
      ).data as unknown as EmailTemplate[],
  });
}

/** An unknown {{variable}} named in the chosen language (the shared field words say only "invalid"). */
const variableError = (message: string) => {
  const m = /unknown variable \{\{([^}]+)\}\}/.exec(message);
  return m ? tw('unknownVariable', { name: `{{${m[1]}}}` }) : null;
};

/** E-mail templates: the list, an editor with the rendered preview and a test send to one address. */
export function EmailTemplates() {
  const list = useEmailTemplates();
  const qc = useQueryClient();
  const [editing, setEditing] = useState<EmailTemplate | 'new' | null>(null);
  const [error, setError] = useState('');
  const admin = isAdmin();
  const remove = async (t: EmailTemplate) => {
    const ok = await confirmAction({
      title: tw('removeTitle', { name: t.name }),
      text: tw('removeEmailText'),
      confirmLabel: tw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/email-templates/{id}', { params: { path: { id: t.documentId } } }));
      toast(tw('removed'));
      await qc.invalidateQueries({ queryKey: ['email-templates'] });
    } catch (err) {
      // Campaigns still use it (details.template): said in the chosen language.
      setError(err instanceof ApiError && err.details?.template ? tw('inUse') : reason(err));
    }
  };
  const columns: Column<EmailTemplate>[] = [
    { key: 'name', label: tw('name'), render: (t) => <strong>{t.name}</strong> },
    { key: 'subject', label: tw('subject'), render: (t) => <span class="mkt-clip">{t.subject}</span> },
    { key: 'updatedAt', label: tw('updated'), render: (t) => dateTime(t.updatedAt) },
    {
      key: 'actions',
      label: tw('actions'),
      render: (t) => (
        <span class="ds-actions">
          <Button
            variant="secondary"
            onClick={() => setEditing(t)}
            aria-label={tw('editOf', { name: t.name })}
          >
            {admin ? tw('edit') : tw('preview')}
          </Button>
          {admin && (
            <Button variant="ghost" onClick={() => remove(t)} aria-label={tw('removeOf', { name: t.name })}>
              {tw('remove')}
            </Button>
          )}
        </span>
      ),
    },
  ];
  return (
    <div>
      <div class="mkt-toolbar">
        <h2>{tw('emailTitle')}</h2>
        {admin && <Button onClick={() => setEditing('new')}>{tw('newEmail')}</Button>}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <DataTable
        caption={tw('emailTitle')}
        columns={columns}
        rows={list.data}
        loading={list.isLoading}
        rowKey={(t) => t.documentId}
        empty={tw('emailEmpty')}
      />
      {editing && (
        <EmailEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          template={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(t) => setEditing(t)}
        />
      )}
    </div>
  );
}

function EmailEditor({
  template,
  onClose,
  onSaved,
}: {
  template: EmailTemplate | null;
  onClose: () => void;
  onSaved: (t: EmailTemplate) => void;
}) {
  const qc = useQueryClient();
  const admin = isAdmin();
  const [v, setV] = useState({
    name: template?.name ?? '',
    subject: template?.subject ?? '',
    html: template?.html ?? '',
    text: template?.text ?? '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof v) => (e: Event) => setV({ ...v, [k]: (e.target as HTMLInputElement).value });
  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral('');
    const data = { name: v.name, subject: v.subject, html: v.html, text: v.text.trim() ? v.text : null };
    try {
      const saved = (await unwrap(
        template
          ? client.PUT('/api/email-templates/{id}', {
              params: { path: { id: template.documentId } },
              body: { data },
            })
          : client.POST('/api/email-templates', { body: { data } }),
      )) as unknown as EmailTemplate;
      toast(tw('saved'));
      await qc.invalidateQueries({ queryKey: ['email-templates'] });
      await qc.invalidateQueries({ queryKey: ['email-preview', saved.documentId] });
      onSaved(saved);
    } catch (err) {
      const r = refusalOf(err, ['name', 'subject', 'html', 'text'], variableError);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      title={template ? tw('editEmail') : tw('newEmail')}
      onClose={onClose}
      wide
      footer={
        admin && (
          <Button submit busy={busy} form="email-template-form">
            {tw('save')}
          </Button>
        )
      }
    >
      <div class="mkt-editor">
        <form id="email-template-form" class="mkt-form" onSubmit={save}>
          <Field label={tw('name')} required error={errors.name}>
            <input name="email-name" maxLength={120} value={v.name} onInput={set('name')} disabled={!admin} />
          </Field>
          <Field label={tw('subject')} required error={errors.subject}>
            <input
              name="email-subject"
              maxLength={255}
              value={v.subject}
              onInput={set('subject')}
              disabled={!admin}
            />
          </Field>
          <Field label={tw('html')} required hint={tw('htmlHint')} error={errors.html}>
            <textarea name="email-html" rows={10} value={v.html} onInput={set('html')} disabled={!admin} />
          </Field>
          <Field label={tw('text')} hint={tw('textHint')} error={errors.text}>
            <textarea name="email-text" rows={3} value={v.text} onInput={set('text')} disabled={!admin} />
          </Field>
          {general && (
            <p role="alert" class="error">
              {general}
            </p>
          )}
        </form>
        <div class="mkt-preview">
          {template ? (
            <>
              <Preview id={template.documentId} />
              {admin && <TestSend id={template.documentId} />}
            </>
          ) : (
            <p class="muted">{tw('saveToPreview')}</p>
          )}
        </div>
      </div>
    </Dialog>
  );
}

/** The template rendered for a sample contact by the service, in a sandboxed frame (no script, no same origin). */
function Preview({ id }: { id: string }) {
  const r = useQuery({
    queryKey: ['email-preview', id],
    queryFn: async () =>
      unwrap(client.POST('/api/email-templates/{id}/preview', { params: { path: { id } }, body: {} })),
  });
  return (
    <section aria-labelledby="email-preview-title" data-testid="email-preview">
      <h3 id="email-preview-title">{tw('preview')}</h3>
      <p class="muted small">{tw('previewHint')}</p>
      {r.error && (
        <p role="alert" class="error">
          {reason(r.error)}
        </p>
      )}
      {r.data && (
        <>
          <p class="mkt-subject">{tw('previewSubject', { subject: r.data.subject })}</p>
          <iframe class="mkt-frame" title={tw('previewFrame')} sandbox="" srcdoc={r.data.html} />
        </>
      )}
    </section>
  );
}

function TestSend({ id }: { id: string }) {
  const channels = useChannels();
  const email = (channels.data ?? []).filter((c) => c.type === 'email');
  const [to, setTo] = useState('');
  const [channel, setChannel] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const send = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    setGeneral('');
    try {
      const sent = await unwrap(
        client.POST('/api/email-templates/{id}/test-send', {
          params: { path: { id } },
          body: { to: to.trim(), ...(channel ? { channel } : {}) },
        }),
      );
      toast(tw('testSent', { to: sent.to }));
    } catch (err) {
      const r = refusalOf(err, ['to', 'channel']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="mkt-form" onSubmit={send} aria-labelledby="test-send-title" data-testid="test-send">
      <h3 id="test-send-title">{tw('testSend')}</h3>
      <Field label={tw('testTo')} required error={errors.to}>
        <input
          name="test-to"
          type="email"
          value={to}
          onInput={(e) => setTo((e.target as HTMLInputElement).value)}
        />
      </Field>
      <Field label={tw('testChannel')} error={errors.channel}>
        <select
          name="test-channel"
          value={channel}
          onChange={(e) => setChannel((e.target as HTMLSelectElement).value)}
        >
          <option value="">{tw('serviceMail')}</option>
          {email.map((c) => (
            <option key={c.documentId} value={c.documentId}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
      <Button submit variant="secondary" busy={busy}>
        {tw('sendTest')}
      </Button>
    </form>
  );
}
