import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, type ChatMessage, client, reason, unwrap } from '../../api';
import { wordsOf } from '../../lib/area-words';
import { MAX_PICTURE_BYTES, PICTURE_TYPES } from '../../lib/attachment-types';
import { personName } from '../../lib/people';
import { Dialog } from '../../ui';
import * as catalogue from '../../words/attachments';

/** Attachments' words (web/src/words/attachments.ts). */
const aw = wordsOf(catalogue);

/** Whether a message's file shows as a picture: a type the browser draws, its size (when known) within the cap. */
export function showsPicture(m: ChatMessage): boolean {
  const a = m.attachments[0];
  if (!a?.mediaId) return false;
  const type = (a.mimeType ?? '').split(';')[0].trim().toLowerCase();
  if (type ? !PICTURE_TYPES.includes(type) : m.contentType !== 'image') return false;
  return a.size === null || a.size <= MAX_PICTURE_BYTES;
}

/** Why the picture is not shown, in words: WhatsApp no longer has it (404), did not deliver it, or the service's reason. */
function failureOf(err: unknown): string {
  let why = reason(err);
  if (err instanceof ApiError && err.status === 502) {
    const status = Number(err.details.providerStatus);
    why = status === 404 || status === 410 ? aw('pictureGone') : aw('pictureProvider');
  }
  return aw('pictureFailed', { reason: why });
}

/**
 * The message's picture as a blob: the media route needs the session's token, which an <img> cannot send. Inbound
 * media carries no size, so the body stops being read past MAX_PICTURE_BYTES: null, named and downloaded only.
 * `signal` is TanStack Query's: leaving the conversation cancels the downloads still running.
 */
async function fetchPicture(
  conversationId: number,
  messageId: number,
  signal: AbortSignal,
): Promise<Blob | null> {
  const call = client.GET('/api/conversations/{id}/messages/{messageId}/media', {
    params: { path: { id: conversationId, messageId } },
    parseAs: 'stream',
    signal,
  });
  const body = await unwrap(call);
  const type = (await call).response.headers.get('content-type') ?? '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_PICTURE_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return new Blob(chunks as BlobPart[], { type });
}

/** The nearest ancestor that scrolls (the thread), else null: the viewport. */
function scroller(el: Element): Element | null {
  for (let p = el.parentElement; p; p = p.parentElement)
    if (/auto|scroll/.test(getComputedStyle(p).overflowY)) return p;
  return null;
}

/**
 * True once the element comes within `margin` of what its scrolling box shows, and from then on: a long thread
 * fetches the pictures a person scrolls to, not all of them at once.
 */
function useNear(ref: { current: Element | null }, margin = '250px') {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (near || !el) return;
    const watch = new IntersectionObserver(
      (entries) => entries.some((e) => e.isIntersecting) && setNear(true),
      {
        root: scroller(el),
        rootMargin: `${margin} 0px`,
      },
    );
    watch.observe(el);
    return () => watch.disconnect();
  }, [near]);
  return near;
}

/** Who the picture is from: "Imagem enviada por <member>" or "Imagem recebida" (its alt; its caption is text below). */
function pictureName(m: ChatMessage): string {
  if (m.direction !== 'outgoing') return aw('pictureReceived');
  return m.sender.membership
    ? aw('pictureSentBy', { name: personName(m.sender.membership) })
    : aw('pictureSent');
}

/**
 * A message's image (or sticker) in the thread: a grey box labelled "Carregando imagem" until the bubble nears the
 * visible part of the thread and the bytes arrive (kept per message by TanStack Query a minute after the bubble goes,
 * so coming back soon does not fetch them again; leaving cancels a download under way), then a thumbnail at most 240 px wide that opens the picture larger in a dialog. Its object URL lives
 * as long as the bubble. A failure (WhatsApp's 404 or 502, bytes the browser cannot draw) or a file past the cap is
 * handed to `onFail` (its reason in words; '' for the cap): the message then names the file with "Baixar" only.
 */
export function MessagePicture(props: {
  conversationId: number;
  message: ChatMessage;
  onFail: (why: string) => void;
}) {
  const { conversationId, message: m, onFail } = props;
  const box = useRef<HTMLDivElement>(null);
  const near = useNear(box);
  const picture = useQuery({
    queryKey: ['message-picture', conversationId, m.id],
    queryFn: ({ signal }) => fetchPicture(conversationId, m.id, signal),
    enabled: near,
    staleTime: Number.POSITIVE_INFINITY,
    // The bytes are held while no bubble shows them for a minute only: a long inbox session does not keep them all.
    gcTime: 60_000,
    // WhatsApp's refusal will not change in a second; "Baixar" stays to try again.
    retry: false,
  });
  const blob = picture.data;
  const url = useMemo(() => (blob ? URL.createObjectURL(blob) : ''), [blob]);
  useEffect(() => () => url && URL.revokeObjectURL(url), [url]);
  useEffect(() => {
    if (picture.error) onFail(failureOf(picture.error));
    else if (blob === null) onFail('');
  }, [picture.error, blob]);
  const [open, setOpen] = useState(false);
  const caption = m.content.trim();
  // The caption is the text under the bubble (and the dialog): the alt names the picture, not repeating it.
  const alt = pictureName(m);
  return (
    <div class="msg-picture" ref={box}>
      {url ? (
        <>
          <button type="button" class="msg-picture-open" aria-haspopup="dialog" onClick={() => setOpen(true)}>
            <img
              src={url}
              alt={alt}
              loading="lazy"
              decoding="async"
              onError={() => onFail(aw('pictureFailed', { reason: aw('pictureUnreadable') }))}
            />
            <span class="sr-only"> {aw('pictureEnlarge')}</span>
          </button>
          <Dialog open={open} title={alt} onClose={() => setOpen(false)} wide>
            <img class="msg-picture-large" src={url} alt={alt} />
            {caption && <p class="msg-picture-caption">{caption}</p>}
          </Dialog>
        </>
      ) : (
        <span class="msg-picture-wait" role="img" aria-label={aw('pictureLoading')} />
      )}
    </div>
  );
}
