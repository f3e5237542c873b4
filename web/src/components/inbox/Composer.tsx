import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, type Conversation, client, reason, unwrap } from '../../api';
import { t } from '../../i18n';
import { onceKey } from '../../lib/idempotency';
import { Button } from '../../ui';
import { AttachButton, attachmentRefusal, ChosenFile, type PickedFile, readBase64 } from './Attachment';
import { TemplateForm } from './TemplateForm';

type Schemas = import('../../api').Schemas;
type Inbox = Schemas['ChatInbox'];

/** The reply box of a conversation: free text or a file inside the 24-hour window, else (or on request) a template. */
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
  const [picked, setPicked] = useState<PickedFile | null>(null);
  const [caption, setCaption] = useState('');
  // A file chosen in one conversation is never sent to another.
  useEffect(() => {
    setPicked(null);
    setCaption('');
  }, [conv.id]);
  // A message (or file) re-sent after its answer was lost keeps its key: the service sends it once.
  const once = useMemo(onceKey, []);
  /** Posts one message under its key; `refusal` puts the service's refusal in words, `done` clears what was sent. */
  const deliver = async (
    payload: unknown,
    post: (key: string) => Promise<{ data?: unknown; error?: unknown; response: Response }>,
    done: () => void,
    refusal: (err: unknown) => string = reason,
  ) => {
    if (sending) return;
    setError(null);
    setSending(true);
    try {
      await unwrap(post(once.keyFor(payload)));
      once.settle();
      done();
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['messages', conv.id] }),
        qc.invalidateQueries({ queryKey: ['conversation', conv.id] }),
        qc.invalidateQueries({ queryKey: ['conversations'] }),
      ]);
    } catch (err) {
      once.settleAfter(err);
      const windowClosed = err instanceof ApiError && err.status === 422 && !!err.details?.window;
      setError({ text: refusal(err), window: windowClosed });
      if (windowClosed) setTemplate(true);
    } finally {
      setSending(false);
    }
  };
  const send = (message: Record<string, unknown>) =>
    deliver(
      { conversation: conv.id, message },
      (key) =>
        client.POST('/api/conversations/{id}/messages', {
          params: { path: { id: conv.id } },
          body: { data: { message } } as never,
          headers: { 'Idempotency-Key': key },
        }),
      () => setText(''),
    );
  // The same file (name, size, type, last change) with the same caption is the same message.
  const sendFile = (p: PickedFile) => {
    const { name, size, type, lastModified } = p.file;
    return deliver(
      { conversation: conv.id, file: { name, size, type, lastModified }, caption },
      async (key) =>
        client.POST('/api/conversations/{id}/attachments', {
          params: { path: { id: conv.id } },
          body: {
            data: {
              base64: await readBase64(p.file),
              filename: name,
              mimeType: p.mimeType,
              ...(caption.trim() ? { caption } : {}),
            },
          },
          headers: { 'Idempotency-Key': key },
        }),
      () => {
        setPicked(null);
        setCaption('');
      },
      (err) => attachmentRefusal(err, p),
    );
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
            void (picked ? sendFile(picked) : send({ content: text }));
          }}
        >
          {picked ? (
            <ChosenFile
              picked={picked}
              caption={caption}
              onCaption={setCaption}
              onRemove={() => {
                setPicked(null);
                setCaption('');
                setError(null);
              }}
            />
          ) : (
            <>
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
            </>
          )}
          <div class="row">
            <Button submit busy={sending}>
              {t('send')}
            </Button>
            <AttachButton
              disabled={sending}
              onPick={(p) => {
                setError(null);
                setPicked(p);
              }}
              onRefuse={(text) => setError({ text, window: false })}
            />
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
