import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'preact/hooks';
import { type Board, type Card, client, reason, unwrap } from '../api';
import { type Condition, hiddenSlugs } from '../conditions';
import { wordsOf } from '../lib/area-words';
import { uploadBoardFile } from '../lib/board-files';
import { refusalOf } from '../lib/marketing';
import { Button, Dialog, Field, toast } from '../ui';
import * as catalogue from '../words/board-work';
import { FieldInput } from './FieldInput';

const kw = wordsOf(catalogue);

/** The board's show/hide conditions (shared with the card drawer's query). */
export function useConditions(boardId: string) {
  return useQuery({
    queryKey: ['conditions', boardId],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/boards/{boardId}/field-conditions', {
            params: { path: { boardId }, query: { pagination: { pageSize: 100 } } as never },
          }),
        )
      ).data as unknown as Condition[],
  });
}

/**
 * A new card of the board in `phaseId` (default: the entry phase), with the entry phase's fields (the service
 * asks them of every new card; its conditions hide some). The browser does not block the form: the service's
 * refusal (a required field left empty, a bad value) is shown beside each field it names. A file field's file goes
 * up when picked (lib/board-files.ts; its refusal beside the field) and the card takes it as the field's value.
 */
export function NewCardDialog(props: {
  board: Board;
  phaseId?: string;
  onClose: () => void;
  onCreated: (c: Card) => void;
}) {
  const { board } = props;
  const phases = [...board.phases].sort((a, b) => a.order - b.order);
  const entry = phases[0];
  const target = phases.find((p) => p.documentId === props.phaseId) ?? entry;
  const conditions = useConditions(board.documentId);
  const [title, setTitle] = useState('');
  const [value, setValue] = useState('');
  const [values, setValues] = useState<Record<string, unknown>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const [uploading, setUploading] = useState(0);
  const fields = useMemo(() => [...(entry?.fields ?? [])].sort((a, b) => a.order - b.order), [entry]);
  const upload = (slug: string) => async (file: File) => {
    setErrors(({ [slug]: _, ...rest }) => rest);
    setUploading((n) => n + 1);
    try {
      return await uploadBoardFile(board.documentId, file);
    } catch (err) {
      setErrors((e) => ({ ...e, [slug]: reason(err, board) }));
      throw err;
    } finally {
      setUploading((n) => n - 1);
    }
  };
  const hidden = useMemo(
    () => hiddenSlugs(fields, conditions.data ?? [], values),
    [conditions.data, values, fields],
  );
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      const data: Record<string, unknown> = { currentPhase: target.documentId };
      if (title.trim()) data.title = title.trim();
      if (value !== '') data.value = Number(value);
      const filled = Object.fromEntries(Object.entries(values).filter(([s]) => !hidden.has(s)));
      if (Object.keys(filled).length) data.fields = filled;
      const card = (await unwrap(
        client.POST('/api/boards/{boardId}/cards', {
          params: { path: { boardId: board.documentId } },
          body: { data } as never,
        }),
      )) as unknown as Card;
      toast(kw('cardCreated', { title: card.title, phase: target.name }));
      props.onCreated(card);
      props.onClose();
    } catch (err) {
      const r = refusalOf(err, ['title', 'value', ...fields.map((f) => f.slug)]);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  if (!target) return null;
  return (
    <Dialog
      open
      title={kw('newCardIn', { phase: target.name })}
      onClose={props.onClose}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose}>
            {kw('cancel')}
          </Button>
          <Button submit busy={busy || uploading > 0} form="new-card-form">
            {kw('createCard')}
          </Button>
        </>
      }
    >
      <form id="new-card-form" class="new-card-form" noValidate onSubmit={save} data-testid="new-card-form">
        <Field label={kw('cardTitle')} hint={kw('cardTitleHint')} error={errors.title}>
          <input
            name="new-card-title"
            maxLength={500}
            value={title}
            onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
          />
        </Field>
        {board.boardSettings.showValue && (
          <Field label={kw('cardValue')} error={errors.value}>
            <input
              name="new-card-value"
              type="number"
              step="0.01"
              min="0"
              value={value}
              onInput={(e) => setValue((e.target as HTMLInputElement).value)}
            />
          </Field>
        )}
        {fields.length > 0 && (
          <fieldset class="phase-fields">
            <legend>{kw('entryFields', { phase: entry.name })}</legend>
            {fields
              .filter((f) => !hidden.has(f.slug))
              .map((f) => (
                <div key={f.slug} class={`new-card-field${errors[f.slug] ? ' has-error' : ''}`}>
                  <FieldInput
                    field={f}
                    value={values[f.slug]}
                    onChange={(v) => setValues((vs) => ({ ...vs, [f.slug]: v }))}
                    onFile={upload(f.slug)}
                  />
                  {errors[f.slug] && (
                    <span class="ds-error" role="alert" data-error-for={f.slug}>
                      {f.label}: {errors[f.slug]}
                    </span>
                  )}
                </div>
              ))}
          </fieldset>
        )}
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
