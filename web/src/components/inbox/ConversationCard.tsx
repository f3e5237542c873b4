import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useState } from 'preact/hooks';
import { ApiError, type Conversation, client, reason, unwrap } from '../../api';
import { date, t } from '../../i18n';
import { wordsOf } from '../../lib/area-words';
import { useBoardList, useCardSearch } from '../../lib/board-queries';
import { onceKey } from '../../lib/idempotency';
import { contactLabel } from '../../lib/labels';
import { Button, Dialog, Field, toast } from '../../ui';
import * as catalogue from '../../words/conversation-card';

/** This area's words (web/src/words/conversation-card.ts). */
const ccw = wordsOf(catalogue);

type Mode = 'create' | 'link' | 'switch';
/** Where a refusal belongs: the board, the title, the picked card, or the whole dialog. */
type Refusal = { at: 'board' | 'title' | 'card' | 'form'; text: string };

/**
 * The service's refusal of POST /conversations/{id}/card[/link|/switch] at the choice it is about: a board the person
 * cannot write to (403) or no longer sees (404), a card gone (404), a title refused, a card linked or unlinked by
 * someone else meanwhile (422); anything else in the common words (lib/errors.ts).
 */
function refusalOf(err: unknown, mode: Mode): Refusal {
  if (!(err instanceof ApiError)) return { at: 'form', text: reason(err) };
  const d = (err.details ?? {}) as Record<string, any>;
  const fieldPath = Array.isArray(d.errors) ? String(d.errors[0]?.path?.at(-1) ?? '') : '';
  if (fieldPath === 'title') return { at: 'title', text: reason(err) };
  if (fieldPath === 'board') return { at: 'board', text: reason(err) };
  if (err.status === 403 && d.feature === undefined) return { at: 'board', text: ccw('errBoardWrite') };
  if (err.status === 404)
    return mode === 'create'
      ? { at: 'board', text: ccw('errBoardGone') }
      : { at: 'card', text: ccw('errCardGone') };
  if (err.status === 422 && d.conversationId !== undefined)
    return { at: 'form', text: ccw(mode === 'switch' ? 'errNoCard' : 'errHasCard') };
  return { at: 'form', text: reason(err) };
}

/**
 * A conversation's card actions for members and up: "Criar card" and "Vincular card" when it has none, "Trocar card"
 * when it has one; each opens the dialog below.
 */
export function ConversationCardActions({ c }: { c: Conversation }) {
  const [mode, setMode] = useState<Mode | null>(null);
  const modes: Mode[] = c.card ? ['switch'] : ['create', 'link'];
  return (
    <div class="conv-card-actions" data-testid="conversation-card-actions">
      {modes.map((m) => (
        <Button key={m} variant="secondary" onClick={() => setMode(m)}>
          {ccw(m)}
        </Button>
      ))}
      <CardDialog c={c} mode={mode} onClose={() => setMode(null)} />
    </div>
  );
}

/**
 * Creating a card from the conversation (a board and a title, the contact's name at first), or linking / switching
 * to a card searched by title on a board. Sent once (Idempotency-Key): a create sent again after a lost answer gets
 * the first answer, not "the conversation already has a card". The service's answer replaces the conversation.
 */
function CardDialog({ c, mode, onClose }: { c: Conversation; mode: Mode | null; onClose: () => void }) {
  const qc = useQueryClient();
  const open = mode !== null;
  const boards = useBoardList(open);
  const [board, setBoard] = useState('');
  const [title, setTitle] = useState('');
  const [picked, setPicked] = useState<string>('');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const once = useMemo(onceKey, []);
  const formId = useId();
  const name = contactLabel(c);
  useEffect(() => {
    if (!open) return;
    setBoard(c.card?.board.documentId ?? '');
    setTitle(c.contact?.name ?? name);
    setPicked('');
    setRefusal(null);
  }, [open]);
  const boardId = board || boards.data?.[0]?.documentId || '';
  const at = (where: Refusal['at']) => (refusal?.at === where ? refusal.text : null);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy || !mode || !boardId) return;
    if (mode !== 'create' && !picked) return setRefusal({ at: 'card', text: ccw('pickOne') });
    setRefusal(null);
    setBusy(true);
    const path = { params: { path: { id: c.id } } };
    const data = mode === 'create' ? { board: boardId, title: title.trim() || undefined } : { card: picked };
    const headers = { 'Idempotency-Key': once.keyFor({ mode, id: c.id, data }) };
    try {
      const updated = (await unwrap(
        mode === 'create'
          ? client.POST('/api/conversations/{id}/card', { ...path, body: { data } as never, headers })
          : mode === 'link'
            ? client.POST('/api/conversations/{id}/card/link', { ...path, body: { data } as never, headers })
            : client.POST('/api/conversations/{id}/card/switch', {
                ...path,
                body: { data } as never,
                headers,
              }),
      )) as Conversation;
      once.settle();
      qc.setQueryData(['conversation', c.id], updated);
      const done = { create: 'created', link: 'linked', switch: 'switched' } as const;
      toast(ccw(done[mode], { title: updated.card?.title ?? '' }));
      onClose();
      void qc.invalidateQueries({ queryKey: ['conversations'] });
    } catch (err) {
      once.settleAfter(err);
      const r = refusalOf(err, mode);
      setRefusal(r);
      // Linked or unlinked by someone else meanwhile: the header shows the conversation as it is now.
      if (err instanceof ApiError && err.status === 422)
        void qc.invalidateQueries({ queryKey: ['conversation', c.id] });
    } finally {
      setBusy(false);
    }
  };

  const titles = { create: 'createTitle', link: 'linkTitle', switch: 'switchTitle' } as const;
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={mode ? ccw(titles[mode], { name }) : ''}
      footer={
        mode && (
          <>
            <Button variant="secondary" onClick={onClose}>
              {t('cancel')}
            </Button>
            <Button submit form={formId} busy={busy} disabled={!boardId}>
              {ccw(mode)}
            </Button>
          </>
        )
      }
    >
      {mode && (
        <form
          id={formId}
          noValidate
          class="conv-card-form"
          data-testid="conversation-card-dialog"
          onSubmit={submit}
        >
          {mode !== 'link' && (
            <p class="muted small">
              {mode === 'create'
                ? ccw('createIntro', { name })
                : ccw('switchIntro', { title: c.card?.title ?? '' })}
            </p>
          )}
          {boards.error && (
            <p role="alert" class="error">
              {reason(boards.error)}
            </p>
          )}
          {boards.data?.length === 0 ? (
            <p class="muted">{ccw('noBoards')}</p>
          ) : (
            <Field label={ccw('board')} error={at('board')}>
              <select
                name="card-board"
                value={boardId}
                onChange={(e) => {
                  setBoard((e.target as HTMLSelectElement).value);
                  setPicked('');
                  setRefusal(null);
                }}
              >
                {boards.data?.map((b) => (
                  <option key={b.documentId} value={b.documentId}>
                    {b.name}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {mode === 'create' ? (
            <Field label={ccw('title')} error={at('title')}>
              <input
                name="card-title"
                maxLength={255}
                value={title}
                onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
              />
            </Field>
          ) : (
            <CardSearch
              boardId={boardId}
              current={c.card?.documentId}
              picked={picked}
              onPick={(id) => {
                setPicked(id);
                setRefusal(null);
              }}
              error={at('card')}
            />
          )}
          {refusal?.at === 'form' && (
            <p role="alert" class="error" data-testid="card-error">
              {refusal.text}
            </p>
          )}
        </form>
      )}
    </Dialog>
  );
}

/** The board's cards whose title holds the search (the newest when empty), one picked as a radio; the current one shown, not pickable. */
function CardSearch(props: {
  boardId: string;
  current?: string;
  picked: string;
  onPick: (documentId: string) => void;
  error: string | null;
}) {
  const search = useCardSearch(props.boardId);
  return (
    <>
      <Field label={ccw('search')} hint={ccw('searchHint')}>
        <input
          type="search"
          name="card-search"
          autocomplete="off"
          value={search.text}
          onInput={(e) => search.setText((e.target as HTMLInputElement).value)}
        />
      </Field>
      <fieldset class={`conv-card-results${props.error ? ' has-error' : ''}`} data-testid="card-results">
        <legend>{ccw('found')}</legend>
        {search.cards?.map((card) => (
          <label key={card.documentId} class="conv-card-option">
            <input
              type="radio"
              name="card-pick"
              value={card.documentId}
              checked={props.picked === card.documentId}
              disabled={card.documentId === props.current}
              onChange={() => props.onPick(card.documentId)}
            />
            <span>
              <strong>{card.title}</strong>
              <span class="muted small">
                {[
                  card.documentId === props.current ? ccw('current') : '',
                  card.currentPhase?.name ?? '',
                  ccw('createdOn', { date: date(card.createdAt) }),
                ]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
            </span>
          </label>
        ))}
        {search.cards?.length === 0 && <p class="muted">{ccw('noneFound')}</p>}
        {search.error && <p class="error">{reason(search.error)}</p>}
        {props.error && (
          <p class="ds-error" role="alert" data-testid="card-pick-error">
            {props.error}
          </p>
        )}
      </fieldset>
    </>
  );
}
