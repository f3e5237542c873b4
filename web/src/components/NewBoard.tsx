import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Board, client, unwrap } from '../api';
import { getLang } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { refusalOf } from '../lib/marketing';
import { num } from '../lib/words';
import { navigate } from '../router';
import { Button, Dialog, Field, toast } from '../ui';
import * as catalogue from '../words/board-work';

const kw = wordsOf(catalogue);

interface Template {
  id: string;
  name: string;
  description: string;
  color: string | null;
  phases: { name: string }[];
}

const CURRENCIES = ['BRL', 'USD', 'EUR'];

/**
 * A new board: from one of the service's templates in the chosen language (its phases, fields, transitions and
 * tags), or empty (then its editor opens to add phases). Only organization admins create boards.
 */
export function NewBoardDialog({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const lang = getLang();
  const templates = useQuery({
    queryKey: ['board-templates', lang],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/board-templates', {
            params: {
              query: { locale: lang === 'en' ? 'en' : 'pt-BR', pagination: { pageSize: 50 } } as never,
            },
          }),
        )
      ).data as unknown as Template[],
  });
  const [template, setTemplate] = useState('');
  const [name, setName] = useState('');
  const [color, setColor] = useState('#2563eb');
  const [currency, setCurrency] = useState('BRL');
  const [showValue, setShowValue] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const picked = templates.data?.find((t) => t.id === template);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      const data: Record<string, unknown> = picked
        ? { name: name.trim() || picked.name, template: picked.id }
        : { name, color, boardSettings: { currency, showValue } };
      const board = (await unwrap(
        client.POST('/api/boards', { body: { data } as never }),
      )) as unknown as Board;
      toast(kw('boardCreated', { name: board.name }));
      await qc.invalidateQueries({ queryKey: ['boards'] });
      onClose();
      // A template's board is ready to use; an empty one needs its phases first.
      navigate(picked ? `/boards/${board.documentId}` : `/boards/${board.documentId}/edit`);
    } catch (err) {
      const r = refusalOf(err, ['name', 'template', 'color', 'currency']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      wide
      title={kw('newBoard')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {kw('cancel')}
          </Button>
          <Button submit busy={busy} form="new-board-form">
            {kw('createBoard')}
          </Button>
        </>
      }
    >
      <form id="new-board-form" class="new-board-form" noValidate onSubmit={save}>
        <fieldset class="template-pick">
          <legend>{kw('startFrom')}</legend>
          <label class="template-option">
            <input
              type="radio"
              name="board-template"
              value=""
              checked={template === ''}
              onChange={() => setTemplate('')}
            />
            <span>
              <strong>{kw('emptyBoard')}</strong>
              <span class="muted small">{kw('emptyBoardText')}</span>
            </span>
          </label>
          {templates.data?.map((t) => (
            <label key={t.id} class="template-option">
              <input
                type="radio"
                name="board-template"
                value={t.id}
                checked={template === t.id}
                onChange={() => setTemplate(t.id)}
              />
              <span>
                <strong>{t.name}</strong>
                <span class="muted small">
                  {t.description} · {kw('phaseCount', { n: num(t.phases.length) })}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
        {errors.template && (
          <p role="alert" class="error">
            {errors.template}
          </p>
        )}
        <Field
          label={kw('boardName')}
          required={!picked}
          hint={picked ? kw('boardNameHint', { name: picked.name }) : undefined}
          error={errors.name}
        >
          <input
            name="board-name"
            maxLength={120}
            value={name}
            placeholder={picked?.name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        {!picked && (
          <div class="mkt-row">
            <Field label={kw('boardColor')} error={errors.color}>
              <input
                name="board-color"
                type="color"
                value={color}
                onInput={(e) => setColor((e.target as HTMLInputElement).value)}
              />
            </Field>
            <Field label={kw('currency')} error={errors.currency}>
              <select
                name="board-currency"
                value={currency}
                onChange={(e) => setCurrency((e.target as HTMLSelectElement).value)}
              >
                {CURRENCIES.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </Field>
          </div>
        )}
        {!picked && (
          <label class="mkt-check">
            <input
              type="checkbox"
              name="board-show-value"
              checked={showValue}
              onChange={(e) => setShowValue((e.target as HTMLInputElement).checked)}
            />{' '}
            {kw('showValue')}
          </label>
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
