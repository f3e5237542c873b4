import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { type Board, type Card, client, type Phase, reason, unwrap } from '../api';
import { type Condition, hiddenSlugs } from '../conditions';
import { t } from '../i18n';
import { uploadBoardFile } from '../lib/board-files';
import { people, personName } from '../lib/labels';
import { Button } from '../ui';
import { DateInput } from './DateInput';
import { FieldInput } from './FieldInput';
import { RichTextArea } from './RichTextArea';

/** The card's own attributes changed in the form and not saved yet. */
interface CardAttrs {
  description?: string | null;
  title?: string;
  value?: number | null;
  dueDate?: string | null;
  tags?: string[];
  assignees?: string[];
  contact?: string | null;
}

/** The card form's unsaved changes (field values and attributes), its save and its status line; emptied when another card opens. */
export function useCardDraft(
  boardId: string,
  cardId: string,
  onSaved: (c: Card) => void,
  refresh: () => Promise<unknown>,
  board?: Board,
) {
  const [draft, setDraft] = useState<Record<string, unknown>>({});
  const [attrs, setAttrs] = useState<CardAttrs>({});
  const [status, setStatus] = useState<{ kind: 'error' | 'ok'; text: string } | null>(null);
  useEffect(() => {
    setDraft({});
    setAttrs({});
    setStatus(null);
  }, [cardId]);
  const save = async (e: Event) => {
    e.preventDefault();
    setStatus(null);
    try {
      const data: Record<string, unknown> = { ...attrs };
      if (Object.keys(draft).length) data.fields = draft;
      const updated = await unwrap(
        client.PUT('/api/boards/{boardId}/cards/{id}', {
          params: { path: { boardId, id: cardId } },
          body: { data } as never,
        }),
      );
      onSaved(updated as unknown as Card);
      setDraft({});
      setAttrs({});
      await refresh();
      setStatus({ kind: 'ok', text: t('saved') });
    } catch (err) {
      setStatus({ kind: 'error', text: reason(err, board) });
    }
  };
  return { draft, setDraft, attrs, setAttrs, status, setStatus, save };
}

type CardDraft = ReturnType<typeof useCardDraft>;

/** The card form: title, value, due date, description, the fields by phase (with the board's show/hide conditions), tags, assignees, contact. */
export function CardForm(props: {
  board: Board;
  card: Card;
  phases: Phase[];
  conditions?: Condition[];
  writable: boolean;
  edit: CardDraft;
}) {
  const { board, card: c, phases, writable } = props;
  const { draft, setDraft, attrs, setAttrs, status, setStatus } = props.edit;
  // A file field's file goes up when picked (lib/board-files.ts); its refusal in the status line.
  const upload = async (file: File) => {
    setStatus(null);
    try {
      return await uploadBoardFile(board.documentId, file);
    } catch (err) {
      setStatus({ kind: 'error', text: reason(err, board) });
      throw err;
    }
  };
  const current = phases.find((p) => p.documentId === c.currentPhase?.documentId);
  // The fields of the phases the card went through, up to its current phase.
  const shownPhases = current ? phases.filter((p) => p.order <= current.order) : phases.slice(0, 1);
  const allFields = phases.flatMap((p) => p.fields);
  const values = { ...c.fields, ...draft };
  const hidden = useMemo(
    () => hiddenSlugs(allFields, props.conditions ?? [], values),
    [props.conditions, c, draft],
  );
  const patch = (p: CardAttrs) => setAttrs({ ...attrs, ...p });
  return (
    <form class="card-form" onSubmit={props.edit.save}>
      <fieldset disabled={!writable}>
        <legend class="sr-only">{t('card')}</legend>
        <CardAttributes card={c} attrs={attrs} onPatch={patch} />
        {shownPhases.map((p) => (
          <fieldset key={p.documentId} class="phase-fields">
            <legend>{p.name}</legend>
            {p.fields
              .filter((f) => !hidden.has(f.slug))
              .map((f) => (
                <FieldInput
                  key={f.slug}
                  field={f}
                  value={values[f.slug]}
                  onChange={(v) => setDraft((d) => ({ ...d, [f.slug]: v }))}
                  onFile={upload}
                  downloadFrom={board.documentId}
                />
              ))}
          </fieldset>
        ))}
        <TagsFieldset
          board={board}
          checked={attrs.tags ?? c.tags.map((x) => x.documentId)}
          onChange={(tags) => patch({ tags })}
        />
        <AssigneesFieldset
          board={board}
          checked={attrs.assignees ?? c.assignees.map((x) => x.documentId)}
          onChange={(assignees) => patch({ assignees })}
        />
        <ContactPicker current={c.contact} onPick={(id) => patch({ contact: id })} picked={attrs.contact} />
        {writable && <Button submit>{t('save')}</Button>}
      </fieldset>
      {status && (
        <p role={status.kind === 'error' ? 'alert' : 'status'} class={status.kind}>
          {status.text}
        </p>
      )}
    </form>
  );
}

/** The card's title, value, due date and description. */
function CardAttributes({
  card: c,
  attrs,
  onPatch,
}: {
  card: Card;
  attrs: CardAttrs;
  onPatch: (p: CardAttrs) => void;
}) {
  return (
    <>
      <div class="field">
        <label for="card-title">{t('title')}</label>
        <input
          id="card-title"
          name="title"
          value={attrs.title ?? c.title}
          onInput={(e) => onPatch({ title: (e.target as HTMLInputElement).value })}
        />
      </div>
      <div class="row">
        <div class="field">
          <label for="card-value">{t('value')}</label>
          <input
            id="card-value"
            name="value"
            type="number"
            step="0.01"
            value={attrs.value ?? c.value}
            onInput={(e) => onPatch({ value: Number((e.target as HTMLInputElement).value) })}
          />
        </div>
        <div class="field">
          <label for="card-due">{t('dueDate')}</label>
          <DateInput
            id="card-due"
            name="dueDate"
            value={(attrs.dueDate ?? c.dueDate ?? '').slice(0, 10)}
            onChange={(v) => onPatch({ dueDate: v ? new Date(`${v}T12:00:00Z`).toISOString() : null })}
          />
        </div>
      </div>
      <div class="field">
        <label for="card-description">{t('description')}</label>
        <RichTextArea
          id="card-description"
          name="description"
          rows={2}
          html={attrs.description !== undefined ? attrs.description : c.description}
          onHtml={(description) => onPatch({ description })}
        />
      </div>
    </>
  );
}

const toggle = (list: string[], id: string, on: boolean) =>
  on ? [...list, id] : list.filter((x) => x !== id);

/** The board's tags, the card's checked. */
function TagsFieldset(props: { board: Board; checked: string[]; onChange: (ids: string[]) => void }) {
  return (
    <fieldset>
      <legend>{t('tags')}</legend>
      {props.board.tags.map((x) => (
        <label key={x.documentId} class="inline">
          <input
            type="checkbox"
            name="tags"
            checked={props.checked.includes(x.documentId)}
            onChange={(e) =>
              props.onChange(toggle(props.checked, x.documentId, (e.target as HTMLInputElement).checked))
            }
          />
          <span class="dot" style={{ background: x.color ?? '#888' }} />
          {x.name}
        </label>
      ))}
    </fieldset>
  );
}

/** The board's people, the card's assignees checked. */
function AssigneesFieldset(props: { board: Board; checked: string[]; onChange: (ids: string[]) => void }) {
  return (
    <fieldset>
      <legend>{t('assignees')}</legend>
      {people(props.board).map((m) => (
        <label key={m.documentId} class="inline">
          <input
            type="checkbox"
            name="assignees"
            checked={props.checked.includes(m.documentId)}
            onChange={(e) =>
              props.onChange(toggle(props.checked, m.documentId, (e.target as HTMLInputElement).checked))
            }
          />
          {personName(m)}
        </label>
      ))}
    </fieldset>
  );
}

function ContactPicker(props: {
  current: Card['contact'];
  picked?: string | null;
  onPick: (id: string | null) => void;
}) {
  const [q, setQ] = useState('');
  const [chosen, setChosen] = useState<string | null>(null);
  const found = useQuery({
    queryKey: ['contact-search', q],
    enabled: q.trim().length >= 3,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/contacts', { params: { query: { q, pagination: { pageSize: 5 } } as never } }),
        )
      ).data as unknown as { documentId: string; name: string; email: string | null }[],
  });
  const label = props.picked === null ? t('none') : (chosen ?? props.current?.name ?? t('none'));
  return (
    <fieldset>
      <legend>{t('contact')}</legend>
      <p>
        <strong>{label}</strong>{' '}
        {(props.picked ?? props.current) && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setChosen(null);
              props.onPick(null);
            }}
          >
            {t('remove')}
          </button>
        )}
      </p>
      <label>
        <span class="sr-only">{t('searchContacts')}</span>
        <input
          type="search"
          placeholder={t('searchContacts')}
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
      </label>
      <ul class="plain">
        {found.data?.map((x) => (
          <li key={x.documentId}>
            <button
              type="button"
              class="link"
              onClick={() => {
                setChosen(x.name);
                props.onPick(x.documentId);
                setQ('');
              }}
            >
              {x.name} {x.email ? `· ${x.email}` : ''}
            </button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
