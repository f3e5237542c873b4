import { Button, Field } from '../../ui';
import {
  ALIGNS,
  type BlockDraft,
  ITEM_COLUMNS,
  newKey,
  type PdfWord,
  PLACEHOLDERS,
  placeholderWord,
  pw,
} from './pdf-layout';

interface Props {
  block: BlockDraft;
  /** Its place in the layout (0-based) and how many there are. */
  index: number;
  count: number;
  /** Refusals by key (`blocks.<i>.<field>`, `blocks.<i>` for the block as a whole). */
  errors: Record<string, string>;
  onChange: (patch: Partial<BlockDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}

/** One block of a PDF template: its type's fields (text with placeholders, rows, columns, labels, sizes). */
export function PdfBlockEditor({ block: b, index: i, count, errors, onChange, onMove, onRemove }: Props) {
  const n = i + 1;
  const key = (f: string) => `blocks.${i}.${f}`;
  const name = (f: string) => `block-${n}-${f}`;
  const value = (f: keyof BlockDraft) => (e: Event) =>
    onChange({ [f]: (e.target as HTMLInputElement).value } as Partial<BlockDraft>);
  const setLabel = (k: string, v: string) => onChange({ labels: { ...b.labels, [k]: v } });
  const alignAndWhen = (
    <div class="mkt-row">
      <Field label={pw('align')} error={errors[key('align')]}>
        <select name={name('align')} value={b.align} onChange={value('align')}>
          <option value="">{pw('al_left')}</option>
          {ALIGNS.filter((a) => a !== 'left').map((a) => (
            <option key={a} value={a}>
              {pw(`al_${a}` as PdfWord)}
            </option>
          ))}
        </select>
      </Field>
      <Field label={pw('when')} error={errors[key('when')]}>
        <select name={name('when')} value={b.when} onChange={value('when')}>
          <option value="">{pw('always')}</option>
          {PLACEHOLDERS.map((p) => (
            <option key={p} value={p}>
              {pw('whenHas', { what: placeholderWord(p) })}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
  return (
    <fieldset class="pdf-block" data-block={n}>
      <legend>{pw('blockN', { n, type: pw(`bt_${b.type}` as PdfWord) })}</legend>
      <div class="ds-actions pdf-block-actions">
        <Button
          variant="ghost"
          disabled={i === 0}
          onClick={() => onMove(-1)}
          aria-label={pw('moveUpOf', { n })}
        >
          {pw('moveUp')}
        </Button>
        <Button
          variant="ghost"
          disabled={i === count - 1}
          onClick={() => onMove(1)}
          aria-label={pw('moveDownOf', { n })}
        >
          {pw('moveDown')}
        </Button>
        <Button
          variant="ghost"
          disabled={count === 1}
          onClick={onRemove}
          aria-label={pw('removeBlockOf', { n })}
        >
          {pw('removeBlock')}
        </Button>
      </div>
      {b.type === 'heading' && (
        <>
          <Field label={pw('text')} hint={pw('textHint')} error={errors[key('text')]}>
            <input name={name('text')} maxLength={500} value={b.text} onInput={value('text')} />
          </Field>
          {alignAndWhen}
        </>
      )}
      {b.type === 'text' && (
        <>
          <Field label={pw('text')} hint={pw('textHint')} error={errors[key('text')]}>
            <textarea name={name('text')} rows={3} maxLength={5000} value={b.text} onInput={value('text')} />
          </Field>
          {alignAndWhen}
          <div class="mkt-row">
            <Field label={pw('size')} hint={pw('sizeHint')} error={errors[key('size')]}>
              <input
                name={name('size')}
                inputMode="decimal"
                size={6}
                value={b.size}
                onInput={value('size')}
              />
            </Field>
            <Field label={pw('color')} hint={pw('colorHint')} error={errors[key('color')]}>
              <input name={name('color')} maxLength={7} size={9} value={b.color} onInput={value('color')} />
            </Field>
          </div>
          <label class="mkt-check">
            <input
              type="checkbox"
              name={name('bold')}
              checked={b.bold}
              onChange={(e) => onChange({ bold: (e.target as HTMLInputElement).checked })}
            />{' '}
            {pw('bold')}
          </label>
        </>
      )}
      {b.type === 'fields' && (
        <>
          {b.rows.map((r, j) => (
            <div key={r.key} class="mkt-row pdf-row">
              <Field label={pw('rowLabel', { n: j + 1 })} error={errors[key(`rows.${j}.label`)]}>
                <input
                  name={name(`row-${j + 1}-label`)}
                  maxLength={200}
                  value={r.label}
                  onInput={(e) =>
                    onChange({
                      rows: b.rows.map((x) =>
                        x.key === r.key ? { ...x, label: (e.target as HTMLInputElement).value } : x,
                      ),
                    })
                  }
                />
              </Field>
              <Field label={pw('rowValue', { n: j + 1 })} error={errors[key(`rows.${j}.value`)]}>
                <input
                  name={name(`row-${j + 1}-value`)}
                  maxLength={1000}
                  value={r.value}
                  onInput={(e) =>
                    onChange({
                      rows: b.rows.map((x) =>
                        x.key === r.key ? { ...x, value: (e.target as HTMLInputElement).value } : x,
                      ),
                    })
                  }
                />
              </Field>
              <Button
                variant="ghost"
                disabled={b.rows.length === 1}
                onClick={() => onChange({ rows: b.rows.filter((x) => x.key !== r.key) })}
                aria-label={pw('removeRowOf', { n: j + 1 })}
              >
                {pw('removeBlock')}
              </Button>
            </div>
          ))}
          <p class="muted small">{pw('textHint')}</p>
          <Button
            variant="secondary"
            disabled={b.rows.length >= 50}
            onClick={() => onChange({ rows: [...b.rows, { key: newKey(), label: '', value: '' }] })}
          >
            {pw('addRow')}
          </Button>
        </>
      )}
      {b.type === 'items' && (
        <fieldset class="pdf-columns">
          <legend>{pw('columns')}</legend>
          <p class="muted small">{pw('columnLabelHint')}</p>
          {ITEM_COLUMNS.map((c) => {
            const on = b.columns.includes(c);
            const word = pw(`col_${c}` as PdfWord);
            return (
              <div key={c} class="mkt-row pdf-column">
                <label class="mkt-check">
                  <input
                    type="checkbox"
                    name={name(`col-${c}`)}
                    checked={on}
                    // The API takes at least one column.
                    disabled={on && b.columns.length === 1}
                    onChange={(e) =>
                      onChange({
                        columns: (e.target as HTMLInputElement).checked
                          ? [...b.columns, c]
                          : b.columns.filter((x) => x !== c),
                        labels:
                          (e.target as HTMLInputElement).checked && !b.labels[c]
                            ? { ...b.labels, [c]: word }
                            : b.labels,
                      })
                    }
                  />{' '}
                  {word}
                </label>
                {on && (
                  <label class="pdf-column-label">
                    <span class="sr-only">{pw('columnLabelOf', { column: word })}</span>
                    <input
                      name={name(`label-${c}`)}
                      maxLength={60}
                      size={14}
                      value={b.labels[c] ?? ''}
                      onInput={(e) => setLabel(c, (e.target as HTMLInputElement).value)}
                    />
                  </label>
                )}
              </div>
            );
          })}
          {errors[key('columns')] && (
            <p role="alert" class="error small">
              {errors[key('columns')]}
            </p>
          )}
        </fieldset>
      )}
      {b.type === 'totals' && (
        <div class="mkt-row">
          {(['subtotal', 'discount', 'total'] as const).map((k) => (
            <Field key={k} label={pw(`tot_${k}`)} error={errors[key(`labels.${k}`)]}>
              <input
                name={name(`total-${k}`)}
                maxLength={60}
                size={14}
                value={b.labels[k] ?? ''}
                onInput={(e) => setLabel(k, (e.target as HTMLInputElement).value)}
              />
            </Field>
          ))}
        </div>
      )}
      {b.type === 'divider' && <p class="muted small">{pw('dividerText')}</p>}
      {b.type === 'spacer' && (
        <Field label={pw('height')} error={errors[key('height')]}>
          <input
            name={name('height')}
            inputMode="decimal"
            size={6}
            value={b.height}
            onInput={value('height')}
          />
        </Field>
      )}
      {errors[`blocks.${i}`] && (
        <p role="alert" class="error small">
          {errors[`blocks.${i}`]}
        </p>
      )}
    </fieldset>
  );
}
