import { useState } from 'preact/hooks';
import { type Board, client, type Field as FieldDef, type Phase, unwrap } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { Badge, Button, confirmAction, Dialog, Field, toast } from '../../ui';
import {
  bw,
  FIELD_TYPES,
  OPTION_TYPES,
  ordered,
  structureRefusal,
  typeWord,
  useStructureRefresh,
} from './shared';

/** Options as lines: `value`, or `value | label` when the label differs. */
const optionLines = (f: FieldDef | null) =>
  (f?.options ?? [])
    .map((o) => (typeof o === 'string' ? o : o.value === o.label ? o.value : `${o.value} | ${o.label}`))
    .join('\n');
const parseOptions = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [value, label] = l.split(/\s*\|\s*/, 2);
      return label ? { value, label } : value;
    });

/** A phase's fields in their form's order (`order`, then as the API listed them). */
const sortedFields = (p: Phase) => [...p.fields].sort((x, y) => x.order - y.order);

/** Each phase's fields: added, edited (label, required, options, help…), deleted; the entry phase's form first. */
export function FieldsSection({ board: b }: { board: Board }) {
  const refresh = useStructureRefresh(b.documentId);
  const [editing, setEditing] = useState<{ phase: Phase; field: FieldDef | null } | null>(null);
  const [error, setError] = useState<{ phase: string; text: string } | null>(null);
  const [moving, setMoving] = useState<string | null>(null);
  /**
   * One step up or down in the phase's form: the phase's fields renumbered 0..n-1 in their new sequence (a PUT
   * with `order` for each field whose position changed), then the focus back on the moved field's button.
   */
  const move = async (p: Phase, f: FieldDef, step: -1 | 1) => {
    const list = sortedFields(p);
    const from = list.findIndex((x) => x.documentId === f.documentId);
    const to = from + step;
    if (from < 0 || to < 0 || to >= list.length) return;
    [list[from], list[to]] = [list[to], list[from]];
    setError(null);
    setMoving(f.documentId);
    try {
      for (const [i, x] of list.entries()) {
        if (x.order === i) continue;
        await unwrap(
          client.PUT('/api/boards/{boardId}/fields/{id}', {
            params: { path: { boardId: b.documentId, id: x.documentId } },
            body: { data: { order: i } } as never,
          }),
        );
      }
      toast(bw('fieldMoved', { name: f.label }));
    } catch (err) {
      setError({ phase: p.documentId, text: structureRefusal(err, b) });
    } finally {
      await refresh();
      setMoving(null);
      // The list re-rendered in its new order: the focus stays on the moved field (the other arrow at an end).
      requestAnimationFrame(() => {
        const own = (dir: string) =>
          document.querySelector<HTMLButtonElement>(`[data-move="${dir}"][data-field="${f.documentId}"]`);
        const there = own(step < 0 ? 'up' : 'down');
        (there && !there.disabled ? there : own(step < 0 ? 'down' : 'up'))?.focus();
      });
    }
  };
  const remove = async (p: Phase, f: FieldDef) => {
    const ok = await confirmAction({
      title: bw('deleteFieldTitle', { name: f.label }),
      text: bw('deleteFieldText'),
      confirmLabel: bw('delete'),
      danger: true,
    });
    if (!ok) return;
    setError(null);
    try {
      await unwrap(
        client.DELETE('/api/boards/{boardId}/fields/{id}', {
          params: { path: { boardId: b.documentId, id: f.documentId } },
        }),
      );
      toast(bw('fieldDeleted', { name: f.label }));
      await refresh();
    } catch (err) {
      setError({ phase: p.documentId, text: structureRefusal(err, b) });
    }
  };
  return (
    <section class="be-section" id="be-fields" aria-labelledby="be-fields-h">
      <h2 id="be-fields-h">{bw('secFields')}</h2>
      <p class="muted">{bw('fieldsIntro')}</p>
      {ordered(b).map((p, i) => (
        <div key={p.documentId} class="be-phase-fields" data-fields-of={p.documentId}>
          <h3>
            {p.name} {i === 0 && <Badge tone="info">{bw('entryPhase')}</Badge>}
          </h3>
          {p.fields.length === 0 && <p class="muted">{bw('noFields')}</p>}
          <ul class="be-list">
            {sortedFields(p).map((f, j, all) => (
              <li key={f.documentId} class="be-item be-field">
                <span class="be-field-name">
                  <strong>{f.label}</strong> <span class="muted">{typeWord(f.type)}</span>{' '}
                  {f.required && <Badge tone="warning">{bw('requiredMark')}</Badge>}
                  {f.options.length > 0 && (
                    <span class="muted small"> · {bw('optionCount', { n: f.options.length })}</span>
                  )}
                </span>
                <span class="ds-actions">
                  <Button
                    variant="ghost"
                    disabled={j === 0 || moving !== null}
                    onClick={() => move(p, f, -1)}
                    aria-label={bw('fieldUpOf', { name: f.label })}
                    data-move="up"
                    data-field={f.documentId}
                  >
                    <span aria-hidden="true">↑</span>
                  </Button>
                  <Button
                    variant="ghost"
                    disabled={j === all.length - 1 || moving !== null}
                    onClick={() => move(p, f, 1)}
                    aria-label={bw('fieldDownOf', { name: f.label })}
                    data-move="down"
                    data-field={f.documentId}
                  >
                    <span aria-hidden="true">↓</span>
                  </Button>
                  <Button
                    variant="secondary"
                    onClick={() => setEditing({ phase: p, field: f })}
                    aria-label={bw('editFieldOf', { name: f.label })}
                  >
                    {bw('edit')}
                  </Button>
                  <Button
                    variant="ghost"
                    onClick={() => remove(p, f)}
                    aria-label={bw('deleteFieldOf', { name: f.label })}
                  >
                    {bw('delete')}
                  </Button>
                </span>
              </li>
            ))}
          </ul>
          {error?.phase === p.documentId && (
            <p role="alert" class="error">
              {error.text}
            </p>
          )}
          <Button variant="secondary" onClick={() => setEditing({ phase: p, field: null })}>
            {bw('addFieldIn', { phase: p.name })}
          </Button>
        </div>
      ))}
      {editing && (
        <FieldDialog
          key={editing.field?.documentId ?? `new-${editing.phase.documentId}`}
          board={b}
          phase={editing.phase}
          field={editing.field}
          onClose={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function FieldDialog(props: { board: Board; phase: Phase; field: FieldDef | null; onClose: () => void }) {
  const { board: b, field: f } = props;
  const refresh = useStructureRefresh(b.documentId);
  const [label, setLabel] = useState(f?.label ?? '');
  const [type, setType] = useState<string>(f?.type ?? 'text');
  const [required, setRequired] = useState(f?.required ?? false);
  const [options, setOptions] = useState(optionLines(f));
  const [placeholder, setPlaceholder] = useState(f?.placeholder ?? '');
  const [helpText, setHelpText] = useState(f?.helpText ?? '');
  const [defaultValue, setDefaultValue] = useState(f?.defaultValue ?? '');
  const [phase, setPhase] = useState(props.phase.documentId);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const takesOptions = OPTION_TYPES.includes(type);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    const data = {
      label,
      required,
      phase,
      placeholder: placeholder || null,
      helpText: helpText || null,
      defaultValue: defaultValue || null,
      options: takesOptions ? parseOptions(options) : null,
    };
    try {
      if (f)
        await unwrap(
          client.PUT('/api/boards/{boardId}/fields/{id}', {
            params: { path: { boardId: b.documentId, id: f.documentId } },
            body: { data } as never,
          }),
        );
      else
        await unwrap(
          client.POST('/api/boards/{boardId}/fields', {
            params: { path: { boardId: b.documentId } },
            body: { data: { ...data, type } } as never,
          }),
        );
      toast(bw('fieldSaved', { name: label }));
      await refresh();
      props.onClose();
    } catch (err) {
      const r = refusalOf(err, [
        'label',
        'type',
        'options',
        'placeholder',
        'helpText',
        'defaultValue',
        'slug',
      ]);
      setErrors(r.fields);
      setGeneral(r.general || (r.fields.slug ? r.fields.slug : ''));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      wide
      title={f ? bw('editField', { name: f.label }) : bw('addFieldIn', { phase: props.phase.name })}
      onClose={props.onClose}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose}>
            {bw('cancel')}
          </Button>
          <Button submit busy={busy} form="field-form">
            {bw('save')}
          </Button>
        </>
      }
    >
      <form id="field-form" noValidate class="be-grid" onSubmit={save}>
        <Field label={bw('fieldLabel')} required error={errors.label}>
          <input
            name="field-label"
            maxLength={200}
            value={label}
            onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={bw('fieldType')} hint={f ? bw('typeFixed') : undefined} error={errors.type}>
          <select
            name="field-type"
            value={type}
            disabled={!!f}
            onChange={(e) => setType((e.target as HTMLSelectElement).value)}
          >
            {FIELD_TYPES.map((t) => (
              <option key={t} value={t}>
                {typeWord(t)}
              </option>
            ))}
          </select>
        </Field>
        <Field label={bw('fieldPhase')}>
          <select
            name="field-phase"
            value={phase}
            onChange={(e) => setPhase((e.target as HTMLSelectElement).value)}
          >
            {ordered(b).map((p) => (
              <option key={p.documentId} value={p.documentId}>
                {p.name}
              </option>
            ))}
          </select>
        </Field>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="field-required"
            checked={required}
            onChange={(e) => setRequired((e.target as HTMLInputElement).checked)}
          />{' '}
          {bw('fieldRequired')}
        </label>
        {takesOptions && (
          <Field label={bw('fieldOptions')} hint={bw('optionsHint')} error={errors.options} class="be-wide">
            <textarea
              name="field-options"
              rows={4}
              value={options}
              onInput={(e) => setOptions((e.target as HTMLTextAreaElement).value)}
            />
          </Field>
        )}
        <Field label={bw('fieldPlaceholder')} error={errors.placeholder}>
          <input
            name="field-placeholder"
            maxLength={500}
            value={placeholder}
            onInput={(e) => setPlaceholder((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={bw('fieldDefault')} hint={bw('defaultHint')} error={errors.defaultValue}>
          <input
            name="field-default"
            maxLength={5000}
            value={defaultValue}
            onInput={(e) => setDefaultValue((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={bw('fieldHelp')} error={errors.helpText} class="be-wide">
          <input
            name="field-help"
            maxLength={2000}
            value={helpText}
            onInput={(e) => setHelpText((e.target as HTMLInputElement).value)}
          />
        </Field>
        {general && (
          <p role="alert" class="error be-wide">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
