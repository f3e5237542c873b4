import { useRef, useState } from 'preact/hooks';
import { ApiError, type ChatMessage, client, reason, unwrap } from '../../api';
import { getLang } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import {
  ACCEPT,
  checkFile,
  extensionOf,
  MAX_ATTACHMENT_BYTES,
  type MediaKind,
} from '../../lib/attachment-types';
import { fileSize } from '../../lib/file-size';
import { saveBlob } from '../../lib/save-blob';
import { Button } from '../../ui';
import * as catalogue from '../../words/attachments';
import { MessagePicture, showsPicture } from './MessagePicture';

/** Attachments' words (web/src/words/attachments.ts). */
const aw = wordsOf(catalogue);

/** A file picked in the composer, with the type WhatsApp will be told. */
export interface PickedFile {
  file: File;
  mimeType: string;
  kind: MediaKind;
}

const kindWord = (kind: string) => aw(`kind_${kind}` as keyof typeof catalogue.ptBR);

/**
 * A message without text in words, in the conversation list's preview and in the thread's bubble: the service
 * writes it as its type, `[text]`, `[template]`, `[image]`, `[audio]`, `[video]` or `[document]`, and a template
 * without text as `[template <name>]`.
 */
export function previewWords(preview: string | null | undefined): string {
  const media = /^\[(text|template|image|audio|video|document)\]$/.exec(preview ?? '');
  if (media) return kindWord(media[1]);
  const template = /^\[template (.+)\]$/.exec(preview ?? '');
  if (template) return aw('previewTemplate', { name: template[1] });
  return preview ?? '';
}

/** A picked file with the type WhatsApp will be told, or why it cannot go out, in words. */
function refusalOf(file: File): { picked: PickedFile; text?: never } | { text: string; picked?: never } {
  const check = checkFile(file);
  if (check.ok) return { picked: { file, mimeType: check.mimeType, kind: check.kind } };
  if (check.why === 'empty') return { text: aw('errEmpty') };
  if (check.why === 'type') return { text: aw('errType', { type: check.type || aw('errUnknownType') }) };
  return {
    text: aw('errSize', {
      size: fileSize(file.size),
      kind: kindWord(check.kind).toLocaleLowerCase(getLang()),
      max: fileSize(check.max),
    }),
  };
}

/** The service's refusal of an attachment in words: its type or size (as checked here), the provider's code, else the reason. */
export function attachmentRefusal(err: unknown, picked: PickedFile): string {
  if (!(err instanceof ApiError)) return reason(err);
  const d = err.details as Record<string, any>;
  if (Array.isArray(d.supportedTypes)) return aw('errType', { type: picked.mimeType });
  if (typeof d.maxBytes === 'number')
    return aw('errSize', {
      size: fileSize(picked.file.size),
      kind: kindWord(picked.kind).toLocaleLowerCase(getLang()),
      max: fileSize(Math.min(d.maxBytes, MAX_ATTACHMENT_BYTES)),
    });
  if (d.providerCode !== undefined && !d.window)
    return aw('errProvider', {
      code: String(d.providerCode),
      message: String(d.providerMessage ?? err.message),
    });
  return reason(err);
}

/** The file as base64 (the body of POST /api/conversations/{id}/attachments), read by the browser. */
export function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/**
 * "Anexar": the page's button opens the picker (the browser's own file button speaks the browser's language, as in
 * contacts/ImportDialog.tsx); a file WhatsApp would refuse (its type, its size) is refused here, before anything is
 * read or sent.
 */
export function AttachButton(props: {
  disabled?: boolean;
  onPick: (picked: PickedFile) => void;
  onRefuse: (text: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <label for="attachment-file" class="sr-only">
        {aw('attachFile')}
      </label>
      <input
        ref={input}
        id="attachment-file"
        type="file"
        name="attachment"
        class="sr-only"
        tabIndex={-1}
        accept={ACCEPT}
        onChange={(e) => {
          const el = e.target as HTMLInputElement;
          const file = el.files?.[0];
          el.value = '';
          if (!file) return;
          const r = refusalOf(file);
          if (r.picked) props.onPick(r.picked);
          else props.onRefuse(r.text);
        }}
      />
      <Button
        variant="secondary"
        disabled={props.disabled}
        aria-describedby="attachment-hint"
        onClick={() => input.current?.click()}
      >
        {aw('attach')}
      </Button>
      <span id="attachment-hint" class="sr-only">
        {aw('attachHint')}
      </span>
    </>
  );
}

/** The chosen file: its name and size, an optional caption, and a button that takes it away. */
export function ChosenFile(props: {
  picked: PickedFile;
  caption: string;
  onCaption: (caption: string) => void;
  onRemove: () => void;
}) {
  const { file } = props.picked;
  return (
    <div class="attachment-chosen" data-testid="attachment">
      <p class="attachment-file">
        <span class="sr-only">{aw('chosen')}: </span>
        <strong class="file-name">{file.name}</strong>{' '}
        <span class="muted small" data-testid="attachment-size">
          {fileSize(file.size)}
        </span>
      </p>
      <Button variant="ghost" onClick={props.onRemove}>
        {aw('removeFile')}
      </Button>
      <label for="attachment-caption" class="attachment-caption">
        {aw('caption')}
      </label>
      <input
        id="attachment-caption"
        name="caption"
        maxLength={1024}
        value={props.caption}
        onInput={(e) => props.onCaption((e.target as HTMLInputElement).value)}
      />
    </div>
  );
}

/**
 * The file a message carries: an image's picture (MessagePicture.tsx) above, then its name (or kind), its size when
 * known and, when the provider keeps it, "Baixar". A picture that cannot be shown leaves the name and "Baixar", with
 * the reason.
 */
export function MessageFile({
  conversationId,
  message: m,
}: {
  conversationId: number;
  message: ChatMessage;
}) {
  const a = m.attachments[0];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  // Why the picture is not shown ('' for a file past the cap); null while it is.
  const [pictureFailed, setPictureFailed] = useState<string | null>(null);
  if (!a) return null;
  const name = a.filename || kindWord(m.contentType);
  const download = async () => {
    setBusy(true);
    setError('');
    try {
      const blob = await unwrap(
        client.GET('/api/conversations/{id}/messages/{messageId}/media', {
          params: { path: { id: conversationId, messageId: m.id } },
          parseAs: 'blob',
        }),
      );
      const ext = extensionOf(a.mimeType ?? (blob as Blob).type);
      saveBlob(blob as Blob, a.filename || `${name}-${m.id}${ext ? `.${ext}` : ''}`);
    } catch (err) {
      setError(aw('downloadFailed', { name, reason: reason(err) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {pictureFailed === null && showsPicture(m) && (
        <MessagePicture conversationId={conversationId} message={m} onFail={setPictureFailed} />
      )}
      <div class="msg-file" data-testid="message-file">
        <span class="file-name">{name}</span>
        {a.size !== null && <span class="muted small">{fileSize(a.size)}</span>}
        {a.mediaId && (
          <Button
            variant="secondary"
            busy={busy}
            aria-label={aw('downloadName', { name })}
            onClick={download}
          >
            {aw('download')}
          </Button>
        )}
        {pictureFailed && (
          <p class="muted small msg-file-note" data-testid="picture-failed">
            {pictureFailed}
          </p>
        )}
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </div>
    </>
  );
}
