import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, type Conversation, client, reason, unwrap } from '../../api';
import { t } from '../../i18n';
import { onceKey } from '../../lib/idempotency';
import { Button } from '../../ui';
import { TemplateForm } from './TemplateForm';

type Schemas = import('../../api').Schemas;
type Inbox = Schemas['ChatInbox'];

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
      once.settleAfter(err);
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
