import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, type Conversation, client, reason, unwrap } from '../../api';
import { t } from '../../i18n';
import { onceKey } from '../../lib/idempotency';
import { Button } from '../../ui';

type Schemas = import('../../api').Schemas;
type Inbox = Schemas['ChatInbox'];
type Template = Schemas['WhatsAppTemplate'];

/** The reply box of a conversation: free text inside the 24-hour window, else (or on request) a template. */
export function Composer({
  conv,
  inbox,
  windowOpen,
}: {
  conv: Conversation;
  inbox?: Inbox;
  windowOpen: boolean;
}) {
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [error, setError] = useState<{ text: string; window: boolean } | null>(null);
  const [sending, setSending] = useState(false);
  const [template, setTemplate] = useState(!windowOpen);
  useEffect(() => setTemplate(!windowOpen), [conv.id, windowOpen]);
  // A message re-sent after its answer was lost keeps its key: the service sends it once.
  const once = useMemo(onceKey, []);
  const send = async (message: Record<string, unknown>) => {
    if (sending) return;
    setError(null);
    setSending(true);
    try {
      await unwrap(
        client.POST('/api/conversations/{id}/messages', {
          params: { path: { id: conv.id } },
          body: { data: { message } } as never,
          headers: { 'Idempotency-Key': once.keyFor({ conversation: conv.id, message }) },
        }),
      );
      once.settle();
      setText('');
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['messages', conv.id] }),
        qc.invalidateQueries({ queryKey: ['conversation', conv.id] }),
        qc.invalidateQueries({ queryKey: ['conversations'] }),
      ]);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) once.settle();
      const windowClosed = err instanceof ApiError && err.status === 422 && !!err.details?.window;
      setError({ text: reason(err), window: windowClosed });
      if (windowClosed) setTemplate(true);
    } finally {
      setSending(false);
    }
  };
  return (
    <div class="composer">
      {!windowOpen && (
        <p class="muted small" data-testid="window-closed">
          {t('windowClosed')}
        </p>
      )}
      {!template ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void send({ content: text });
          }}
        >
          <label for="reply">{t('reply')}</label>
          <textarea
            id="reply"
            name="reply"
            rows={3}
            required
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                if (text.trim()) void send({ content: text });
              }
            }}
          />
          <div class="row">
            <Button submit busy={sending}>
              {t('send')}
            </Button>
            {inbox && (
              <Button variant="ghost" onClick={() => setTemplate(true)}>
                {t('useTemplate')}
              </Button>
            )}
          </div>
        </form>
      ) : (
        <TemplateForm
          channelId={inbox?.channel.documentId}
          sending={sending}
          onSend={send}
          onText={() => setTemplate(false)}
        />
      )}
      {error && (
        <p role="alert" class="error" data-testid="send-error">
          {error.text}
        </p>
      )}
    </div>
  );
}

/** The template alternative (outside the 24-hour window): an approved template of the channel and its variables. */
function TemplateForm(props: {
  channelId?: string;
  sending: boolean;
  onSend: (m: Record<string, unknown>) => Promise<void>;
  onText?: () => void;
}) {
  const [picked, setPicked] = useState('');
  const [params, setParams] = useState<string[]>([]);
  const templates = useQuery({
    queryKey: ['templates', props.channelId],
    enabled: !!props.channelId,
    queryFn: async () =>
      (
        (await unwrap(
          client.GET('/api/chat-channels/{channelId}/templates', {
            params: {
              path: { channelId: props.channelId! },
              query: { pagination: { pageSize: 100 } } as never,
            },
          }),
        )) as { data: Template[] }
      ).data.filter((x) => x.status === 'APPROVED'),
  });
  const tpl = templates.data?.find((x) => x.documentId === picked);
  const body = String(
    (tpl?.components.find((c) => String(c.type).toUpperCase() === 'BODY') as { text?: string } | undefined)
      ?.text ?? '',
  );
  const vars = [...new Set([...body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => m[1]))];
  const rendered = body.replace(/\{\{(\d+)\}\}/g, (_, n: string) => params[Number(n) - 1] || `{{${n}}}`);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (!tpl) return;
        void props.onSend({
          content: rendered,
          template_params: {
            name: tpl.name,
            category: tpl.category,
            language: tpl.language,
            processed_params: Object.fromEntries(vars.map((n) => [n, params[Number(n) - 1] ?? ''])),
          },
        });
      }}
    >
      <label>
        {t('template')}
        <select
          name="template"
          value={picked}
          onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}
        >
          <option value="">—</option>
          {templates.data?.map((x) => (
            <option key={x.documentId} value={x.documentId}>
              {x.name} ({x.language})
            </option>
          ))}
        </select>
      </label>
      {templates.data?.length === 0 && <p class="muted small">{t('noTemplates')}</p>}
      {templates.error && <p class="error">{reason(templates.error)}</p>}
      {vars.map((n) => (
        <label key={n}>
          {`{{${n}}}`}
          <input
            name={`param-${n}`}
            required
            value={params[Number(n) - 1] ?? ''}
            onInput={(e) => {
              const next = [...params];
              next[Number(n) - 1] = (e.target as HTMLInputElement).value;
              setParams(next);
            }}
          />
        </label>
      ))}
      {tpl && <p class="template-preview">{rendered}</p>}
      <div class="row">
        <Button submit disabled={!tpl} busy={props.sending}>
          {t('sendTemplate')}
        </Button>
        {props.onText && (
          <Button variant="ghost" onClick={props.onText}>
            {t('freeText')}
          </Button>
        )}
      </div>
    </form>
  );
}
