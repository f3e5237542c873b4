import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type Board, client, type Page, type Ref, reason, unwrap } from '../api';
import { dateTime, t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { canDeleteComment, canEditComment } from '../lib/board-access';
import { time } from '../lib/dates';
import { type Member, useMembers } from '../lib/directory';
import { historySentence } from '../lib/events';
import { htmlAsText } from '../lib/html-text';
import { personName } from '../lib/people';
import { useSubmit } from '../lib/submit';
import { canWrite } from '../session';
import { Button, confirmAction, Field, toast } from '../ui';
import * as catalogue from '../words/comments';
import { type Mention, MentionBox, MentionText, mentionsIn } from './MentionBox';

const cw = wordsOf(catalogue);

interface Comment {
  documentId: string;
  content: string;
  /** `html`: written through the API, shown and edited as its text (lib/html-text.ts). */
  contentFormat: 'plain' | 'html';
  type: 'user' | 'system';
  activityType: string | null;
  mentions: string[];
  author: Ref | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}
/** What a person reads of a comment: its text, or an HTML comment's text. */
const textOf = (x: Comment) => (x.contentFormat === 'html' ? htmlAsText(x.content) : x.content);

/** Where a comment lives, and how its list is read again after a change. */
interface Place {
  boardId: string;
  cardId: string;
  refresh: () => Promise<void>;
}

/** The card's comments (list, post, edit, delete) and its history (the system comments, which never change). */
export function CardComments({ board, cardId }: { board: Board; cardId: string }) {
  const boardId = board.documentId;
  const tagName = (slug: string) => board.tags.find((x) => x.slug === slug)?.name ?? slug;
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<Mention[]>([]);
  const { error, busy, run } = useSubmit();
  const memberList = useMembers();
  const members = memberList.data ?? [];
  const list = useQuery({
    queryKey: ['comments', boardId, cardId],
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/boards/{boardId}/cards/{cardId}/comments', {
          params: { path: { boardId, cardId }, query: { pagination: { pageSize: 100 } } as never },
        }),
      )) as unknown as Page<Comment>,
  });
  const place: Place = {
    boardId,
    cardId,
    refresh: () => qc.invalidateQueries({ queryKey: ['comments', boardId, cardId] }),
  };
  const post = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await unwrap(
        client.POST('/api/boards/{boardId}/cards/{cardId}/comments', {
          params: { path: { boardId, cardId } },
          body: { data: { content: text, mentions: mentionsIn(text, picked) } },
        }),
      );
      setText('');
      setPicked([]);
      await place.refresh();
    });
  };
  const all = list.data?.data ?? [];
  const user = all.filter((x) => x.type === 'user');
  const history = all.filter((x) => x.type === 'system').reverse();
  return (
    <>
      <section aria-labelledby="comments-title">
        <h3 id="comments-title" tabIndex={-1}>
          {t('comments')}
        </h3>
        <ul class="comments" data-testid="comments">
          {user.map((x) => (
            <CommentItem
              key={x.documentId}
              comment={x}
              members={members}
              membersRead={memberList.isSuccess}
              place={place}
            />
          ))}
        </ul>
        {canWrite() && (
          <form onSubmit={post} class="comment-form">
            <label for="new-comment">{t('newComment')}</label>
            <MentionBox
              id="new-comment"
              name="comment"
              value={text}
              members={members}
              onText={setText}
              onMention={(m) => setPicked((all) => [...all, m])}
            />
            {error && (
              <p role="alert" class="error">
                {error}
              </p>
            )}
            <Button submit busy={busy}>
              {t('comment')}
            </Button>
          </form>
        )}
      </section>
      <section aria-labelledby="history-title">
        <h3 id="history-title">{t('history')}</h3>
        <ul class="history">
          {history.map((x) => (
            <li key={x.documentId}>
              <span class="muted small">
                {dateTime(x.createdAt)} · {personName(x.author)}
              </span>{' '}
              {historySentence(x, tagName)}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

/** A comment as the delete confirmation quotes it: at most 140 characters, cut on whole code points (an emoji stays whole). */
function quoted(content: string): string {
  const chars = Array.from(content);
  return chars.length > 140 ? `${chars.slice(0, 139).join('')}…` : content;
}

/** "editado às 14:35" the day it was written, "editado em 04/12/2026 09:10" later; nothing when never changed. */
function editedMark(c: Comment): string {
  if (c.updatedAt === c.createdAt) return '';
  const sameDay = new Date(c.updatedAt).toDateString() === new Date(c.createdAt).toDateString();
  return sameDay
    ? cw('editedAt', { time: time(c.updatedAt) })
    : cw('editedOn', { when: dateTime(c.updatedAt) });
}

/**
 * A user comment: who wrote it and when (marked once edited), its text with the mentions; "Editar" for its author
 * (edited in place, Escape or "Cancelar" leaves it as it was) and "Excluir" for its author or an admin, after a
 * confirmation. The focus goes to the editor when it opens and back to "Editar" when it closes.
 */
function CommentItem({
  comment: x,
  members,
  membersRead,
  place,
}: {
  comment: Comment;
  members: Member[];
  /** Whether the members have arrived: "Editar" waits for them (the editor tells the written mentions by their names). */
  membersRead: boolean;
  place: Place;
}) {
  const [editing, setEditing] = useState(false);
  const item = useRef<HTMLLIElement>(null);
  const wasEditing = useRef(false);
  // A layout effect: the focus moves in the same task as the editor appears or goes, never a frame later (the
  // browser would put it on <body> meanwhile, and a screen reader announce the page).
  useLayoutEffect(() => {
    if (editing) {
      const box = item.current?.querySelector('textarea');
      box?.setSelectionRange(box.value.length, box.value.length);
      box?.focus();
    } else if (wasEditing.current)
      item.current?.querySelector<HTMLButtonElement>('[data-comment-edit]')?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const who = { name: personName(x.author), when: dateTime(x.createdAt) };
  const edited = editedMark(x);
  const remove = async () => {
    const ok = await confirmAction({
      title: cw('deleteTitle'),
      text: quoted(textOf(x)),
      confirmLabel: cw('delete'),
      danger: true,
    });
    if (!ok) return;
    try {
      await unwrap(
        client.DELETE('/api/boards/{boardId}/cards/{cardId}/comments/{id}', {
          params: { path: { boardId: place.boardId, cardId: place.cardId, id: x.documentId } },
        }),
      );
      toast(cw('deleted'));
      await place.refresh();
      // The comment (and its button) is gone: the focus goes to the list's heading.
      document.getElementById('comments-title')?.focus();
    } catch (err) {
      toast(reason(err), 'error');
    }
  };
  return (
    <li ref={item} data-comment-id={x.documentId}>
      <span class="muted small">
        {who.name} · {who.when}
        {edited && (
          <>
            {' · '}
            <span data-testid="comment-edited">{edited}</span>
          </>
        )}
      </span>
      {editing ? (
        <CommentEditor comment={x} members={members} place={place} onDone={() => setEditing(false)} />
      ) : (
        <MentionText content={textOf(x)} mentions={x.mentions ?? []} members={members} />
      )}
      {!editing && (canEditComment(x) || canDeleteComment(x)) && (
        <div class="row">
          {canEditComment(x) && (
            <Button
              variant="ghost"
              data-comment-edit
              aria-label={cw('editOf', who)}
              disabled={!membersRead}
              onClick={() => setEditing(true)}
            >
              {cw('edit')}
            </Button>
          )}
          {canDeleteComment(x) && (
            <Button variant="ghost" aria-label={cw('deleteOf', who)} onClick={remove}>
              {cw('delete')}
            </Button>
          )}
        </div>
      )}
    </li>
  );
}

/**
 * A comment edited in place with the comment box's mentions: the mentions its "@Name"s write start picked (one
 * whose name is deleted is no longer sent, one added after "@" is); a mention the text never wrote out (made through
 * the API) stays, there is no "@Name" to delete it by. The mentions go out only when they change, and only of
 * members the organization still has (one who left would be refused); nothing changed, nothing is sent. A refusal
 * is said at the field; while the save runs, neither Escape nor "Cancelar" closes the editor.
 */
function CommentEditor({
  comment: x,
  members,
  place,
  onDone,
}: {
  comment: Comment;
  members: Member[];
  place: Place;
  onDone: () => void;
}) {
  const [initial] = useState<Mention[]>(() =>
    (x.mentions ?? []).flatMap((id) => {
      const m = members.find((m) => m.documentId === id);
      return m ? [{ documentId: id, name: personName(m) }] : [];
    }),
  );
  // An HTML comment is edited as its text, and saved as plain text (its formatting goes: the editor says so).
  const html = x.contentFormat === 'html';
  const [original] = useState(() => textOf(x));
  const [text, setText] = useState(original);
  const [picked, setPicked] = useState(initial);
  const written = mentionsIn(original, initial);
  const unwritten = (x.mentions ?? []).filter((id) => !written.includes(id));
  const { error, busy, run } = useSubmit({ content: cw('contentRefused') });
  const save = (e: Event) => {
    e.preventDefault();
    const member = (id: string) => members.some((m) => m.documentId === id);
    const current = (x.mentions ?? []).filter(member);
    const mentions = [...new Set([...unwritten, ...mentionsIn(text, picked)])].filter(member);
    const mentionsChanged =
      mentions.length !== current.length || mentions.some((id) => !current.includes(id));
    const textChanged = text !== original;
    if (!textChanged && !mentionsChanged) return onDone();
    void run(async () => {
      await unwrap(
        client.PUT('/api/boards/{boardId}/cards/{cardId}/comments/{id}', {
          params: { path: { boardId: place.boardId, cardId: place.cardId, id: x.documentId } },
          body: {
            data: {
              ...(textChanged ? { content: text, ...(html ? { contentFormat: 'plain' as const } : {}) } : {}),
              ...(mentionsChanged ? { mentions } : {}),
            },
          },
        }),
      );
      await place.refresh();
      toast(cw('saved'));
      onDone();
    });
  };
  // Escape cancels the edit (and leaves the drawer open); an Escape the mention list took closes only the list.
  const cancelOnEscape = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || e.defaultPrevented) return;
    e.preventDefault();
    if (!busy) onDone();
  };
  return (
    <form class="comment-form" onSubmit={save} onKeyDown={cancelOnEscape} data-testid="comment-editor">
      <Field label={cw('editLabel')} error={error} hint={html ? cw('htmlEditHint') : undefined}>
        <MentionBox
          name="comment-edit"
          value={text}
          members={members}
          onText={setText}
          onMention={(m) => setPicked((all) => [...all, m])}
        />
      </Field>
      <div class="row">
        <Button submit busy={busy}>
          {t('save')}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={onDone}>
          {t('cancel')}
        </Button>
      </div>
    </form>
  );
}
