import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, type Conversation, client, reason, unwrap } from '../../api';
import { wordsOf } from '../../lib/area-words';
import { onceKey } from '../../lib/idempotency';
import { navigate } from '../../router';
import { Button, Dialog, Field, toast } from '../../ui';
import * as catalogue from '../../words/start-conversation';
import * as templateWords from '../../words/templates';
import { phoneText } from '../contacts/shared';
import { TemplateForm, type TemplateMessage } from './TemplateForm';

/** This dialog's words (web/src/words/start-conversation.ts). */
export const scw = wordsOf(catalogue);
const tw = wordsOf(templateWords);

type Inbox = import('../../api').Schemas['ChatInbox'];
/** The contact written to: fixed (from a contact's page) or picked by a search. */
export interface StartContact {
  documentId: string;
  name: string;
  phone: string | null;
}

/** Where a refusal of POST /api/conversations belongs: the contact, the template, or the whole send. */
type Refusal = { at: 'contact' | 'template' | 'send'; text: string };

/** The service's refusal in words, at the choice it is about (details say which: lib/errors.ts for the rest). */
function refusalOf(err: unknown): Refusal {
  if (!(err instanceof ApiError)) return { at: 'send', text: reason(err) };
  const d = err.details as Record<string, any>;
  if (err.status === 422 && typeof d.contact === 'string') return { at: 'contact', text: scw('errNoPhone') };
  if (err.status === 422 && d.template?.status) {
    const status = tw(`st_${d.template.status}` as keyof typeof templateWords.ptBR).toLocaleLowerCase();
    return { at: 'template', text: scw('errTemplate', { name: d.template.name, status }) };
  }
  if (d.providerCode !== undefined && !d.window) {
    const code = String(d.providerCode);
    if (code === '131026') return { at: 'contact', text: scw('errUndeliverable', { code }) };
    return {
      at: 'send',
      text: scw('errProvider', { code, message: String(d.providerMessage ?? err.message) }),
    };
  }
  return { at: d.window ? 'template' : 'send', text: reason(err) };
}

/**
 * Writing first to a contact on WhatsApp (POST /api/conversations): the inbox, the contact (searched by name or
 * phone, or fixed), an approved template with its variables and preview; sent once (Idempotency-Key), then the new
 * conversation opens in the inbox.
 */
export function StartConversation({
  open,
  onClose,
  contact: fixed,
}: {
  open: boolean;
  onClose: () => void;
  contact?: StartContact;
}) {
  const qc = useQueryClient();
  const inboxes = useQuery({
    queryKey: ['inboxes'],
    enabled: open,
    queryFn: async () => (await unwrap(client.GET('/api/inboxes'))).data as Inbox[],
  });
  const [inboxId, setInboxId] = useState('');
  const [picked, setPicked] = useState<StartContact | null>(null);
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const contact = fixed ?? picked;
  const inbox = inboxes.data?.find((i) => String(i.id) === inboxId) ?? inboxes.data?.[0];
  // A first message re-sent after its answer was lost keeps its key: the person gets it once.
  const once = useMemo(onceKey, []);
  useEffect(() => {
    if (open) return;
    setPicked(null);
    setRefusal(null);
  }, [open]);

  const send = async (message: TemplateMessage) => {
    if (sending || !inbox || !contact) return;
    setRefusal(null);
    setSending(true);
    const data = { inboxId: inbox.id, contact: contact.documentId, message };
    try {
      const started = (await unwrap(
        client.POST('/api/conversations', {
          body: { data } as never,
          headers: { 'Idempotency-Key': once.keyFor(data) },
        }),
      )) as { conversation: Conversation };
      once.settle();
      await qc.invalidateQueries({ queryKey: ['conversations'] });
      toast(scw('started', { name: contact.name }));
      onClose();
      navigate(`/inbox/${started.conversation.id}`);
    } catch (err) {
      once.settleAfter(err);
      setRefusal(refusalOf(err));
    } finally {
      setSending(false);
    }
  };

  const at = (where: Refusal['at']) => (refusal?.at === where ? refusal.text : null);
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={fixed ? scw('titleTo', { name: fixed.name }) : scw('newConversation')}
    >
      <div class="start-conversation" data-testid="start-conversation">
        <p class="muted small">{scw('intro')}</p>
        {inboxes.error && (
          <p role="alert" class="error">
            {reason(inboxes.error)}
          </p>
        )}
        {inboxes.data?.length === 0 ? (
          <p class="muted">{scw('noInboxes')}</p>
        ) : (
          <>
            <Field label={scw('inbox')}>
              <select
                name="start-inbox"
                value={inbox ? String(inbox.id) : ''}
                onChange={(e) => setInboxId((e.target as HTMLSelectElement).value)}
              >
                {inboxes.data?.map((i) => (
                  <option key={i.id} value={String(i.id)}>
                    {i.name}
                  </option>
                ))}
              </select>
            </Field>
            {fixed ? (
              <FixedContact contact={fixed} error={at('contact')} />
            ) : (
              <ContactPicker
                picked={picked}
                onPick={(c) => {
                  setPicked(c);
                  setRefusal(null);
                }}
                error={at('contact')}
              />
            )}
            <div class="composer">
              <TemplateForm
                key={inbox?.channel.documentId}
                channelId={inbox?.channel.documentId}
                sending={sending}
                disabled={!contact}
                submitLabel={scw('send')}
                error={at('template')}
                onSend={send}
              />
            </div>
          </>
        )}
        {refusal?.at === 'send' && (
          <p role="alert" class="error" data-testid="start-error">
            {refusal.text}
          </p>
        )}
      </div>
    </Dialog>
  );
}

/** The contact of a contact's page: named, with its phone (or that it has none). */
function FixedContact({ contact, error }: { contact: StartContact; error: string | null }) {
  return (
    <div class={`ds-field${error ? ' has-error' : ''}`}>
      <span class="ds-label">{scw('contact')}</span>
      <p class="start-contact" data-testid="start-contact">
        <strong>{contact.name}</strong> · {contact.phone ? phoneText(contact.phone) : scw('noPhone')}
      </p>
      {error && (
        <span class="ds-error" role="alert" data-testid="contact-error">
          {error}
        </span>
      )}
    </div>
  );
}

/** A contact searched by name or phone (3+ characters), then picked; "Trocar contato" searches again. */
function ContactPicker(props: {
  picked: StartContact | null;
  onPick: (c: StartContact | null) => void;
  error: string | null;
}) {
  const [q, setQ] = useState('');
  const [debounced, setDebounced] = useState('');
  useEffect(() => {
    const id = setTimeout(() => setDebounced(q.trim()), 250);
    return () => clearTimeout(id);
  }, [q]);
  const searching = debounced.replace(/[\s()+-]/g, '').length >= 3;
  const found = useQuery({
    queryKey: ['contact-search', 'start', debounced],
    enabled: searching && !props.picked,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/contacts', {
            params: { query: { q: debounced, pagination: { pageSize: 8 } } as never },
          }),
        )
      ).data as unknown as StartContact[],
  });
  if (props.picked)
    return (
      <div class={`ds-field${props.error ? ' has-error' : ''}`}>
        <span class="ds-label">{scw('contact')}</span>
        <p class="start-contact row" data-testid="start-contact">
          <span>
            <strong>{props.picked.name}</strong> ·{' '}
            {props.picked.phone ? phoneText(props.picked.phone) : scw('noPhone')}
          </span>
          <Button variant="ghost" onClick={() => props.onPick(null)}>
            {scw('change')}
          </Button>
        </p>
        {props.error && (
          <span class="ds-error" role="alert" data-testid="contact-error">
            {props.error}
          </span>
        )}
      </div>
    );
  return (
    <>
      <Field label={scw('contact')} hint={scw('searchHint')} error={props.error}>
        <input
          type="search"
          name="start-contact-search"
          autocomplete="off"
          placeholder={scw('searchContact')}
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
      </Field>
      {searching && found.data && (
        <ul class="plain start-results" aria-label={scw('results')} data-testid="contact-results">
          {found.data.map((c) => (
            <li key={c.documentId}>
              <button
                type="button"
                class="link"
                data-contact={c.documentId}
                onClick={() => {
                  props.onPick({ documentId: c.documentId, name: c.name, phone: c.phone });
                  setQ('');
                }}
              >
                {c.name} · {c.phone ? phoneText(c.phone) : scw('noPhone')}
              </button>
            </li>
          ))}
          {found.data.length === 0 && <li class="muted">{scw('noResults')}</li>}
        </ul>
      )}
      {found.error && <p class="error">{reason(found.error)}</p>}
    </>
  );
}
