import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type Field, reason } from '../api';
import { t } from '../i18n';
import { wordsOf } from '../lib/area-words';
import { boardFileUrl, downloadBoardFile } from '../lib/board-files';
import { fileSize } from '../lib/file-size';
import * as fileWords from '../words/board-files';
import { DateInput } from './DateInput';
import { DateTimeInput } from './DateTimeInput';
import { RichTextArea } from './RichTextArea';

/** The file fields' words (web/src/words/board-files.ts). */
const fw = wordsOf(fileWords);

const optionList = (f: Field) => f.options.map((o) => (typeof o === 'string' ? { value: o, label: o } : o));

interface FieldInputProps {
  field: Field;
  value: unknown;
  onChange: (v: unknown) => void;
  disabled?: boolean;
  onFile?: (file: File) => Promise<unknown>;
  /** The board whose files a file field lists, given where the session may download them (the card drawer). */
  downloadFrom?: string;
}

/** The `<input type>` of the field types shown as a text-like input other than `text`. */
const INPUT_TYPES = new Map([
  ['email', 'email'],
  ['url', 'url'],
  ['phone', 'tel'],
  ['date', 'date'],
  ['time', 'time'],
]);

const fieldId = (f: Field) => `f-${f.slug}`;

/** The attributes every single-control field's input carries. */
const controlAttrs = (f: Field, disabled?: boolean) => ({
  id: fieldId(f),
  name: f.slug,
  disabled,
  required: f.required,
  'aria-describedby': f.helpText ? `${fieldId(f)}-help` : undefined,
});

/** One dynamic field, by type; `name` is the field's slug (the public form's contract). */
export function FieldInput(props: FieldInputProps) {
  const f = props.field;
  switch (f.type) {
    case 'multiselect':
      return <MultiselectField {...props} />;
    case 'radio':
      return <RadioField {...props} />;
    case 'switch':
    case 'checkbox':
      return <CheckboxField {...props} />;
    case 'statement':
      return (
        <p class="statement">
          {f.label}
          {f.helpText ? ` — ${f.helpText}` : ''}
        </p>
      );
    case 'hidden':
      return null;
    default:
      return <LabelledField {...props} />;
  }
}

/** A field of one control under its label, with its help text. */
function LabelledField(props: FieldInputProps) {
  const f = props.field;
  const id = fieldId(f);
  return (
    <div class="field">
      <label for={id}>
        {f.label}
        {f.required && (
          <span class="req" title={t('required')}>
            {' '}
            *
          </span>
        )}
      </label>
      {fieldControl(props)}
      {f.helpText && (
        <small id={`${id}-help`} class="muted">
          {f.helpText}
        </small>
      )}
    </div>
  );
}

/** The control of a labelled field, by type. */
function fieldControl(props: FieldInputProps) {
  const { field: f, value, onChange, disabled } = props;
  const common = controlAttrs(f, disabled);
  const str = value == null ? '' : String(value);
  switch (f.type) {
    case 'richtext':
      return <RichTextArea {...common} rows={3} html={value as string | null} onHtml={onChange} />;
    case 'textarea':
      return (
        <textarea
          {...common}
          rows={3}
          value={str}
          onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
        />
      );
    case 'number':
    case 'currency':
      return (
        <input
          {...common}
          type="number"
          step={f.type === 'currency' ? '0.01' : 'any'}
          value={str}
          onInput={(e) => {
            const v = (e.target as HTMLInputElement).value;
            onChange(v === '' ? null : Number(v));
          }}
        />
      );
    case 'datetime':
      return (
        <DateTimeInput
          {...common}
          value={str ? toLocalInput(str) : ''}
          onChange={(v) => onChange(v ? new Date(v).toISOString() : null)}
        />
      );
    case 'select':
      return (
        <select
          {...common}
          value={str}
          onChange={(e) => onChange((e.target as HTMLSelectElement).value || null)}
        >
          <option value="">—</option>
          {optionList(f).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case 'file':
      return <FileControl {...props} />;
    case 'date':
      return <DateInput {...common} value={str.slice(0, 10)} onChange={onChange} />;
    default:
      // email, url, phone, date, time; card_link and any other type: a text input.
      return (
        <input
          {...common}
          type={INPUT_TYPES.get(f.type) ?? 'text'}
          placeholder={f.placeholder ?? undefined}
          value={str}
          onInput={(e) => onChange((e.target as HTMLInputElement).value)}
        />
      );
  }
}

/** A file field: the picked file goes up through `onFile` at once; the field's value lists the uploaded files. */
function FileControl(props: FieldInputProps) {
  const { field: f, value, onChange, disabled } = props;
  // Each file by its name and size (the upload answers them, the card presents them); a bare documentId as "Arquivo 1".
  const files = (Array.isArray(value) ? value : value ? [value] : []) as (
    | string
    | { documentId: string; name?: string; size?: number }
  )[];
  return (
    <>
      <input
        {...controlAttrs(f, disabled)}
        type="file"
        required={f.required && files.length === 0}
        onChange={async (e) => {
          const file = (e.target as HTMLInputElement).files?.[0];
          if (!file || !props.onFile) return;
          try {
            onChange([...files, await props.onFile(file)]);
          } catch {
            // the caller shows the reason
          }
        }}
      />
      {files.length > 0 && (
        <ul class="field-files" aria-label={fw('files', { field: f.label })}>
          {files.map((x, i) => {
            const ref = typeof x === 'object' ? x : { documentId: x };
            const name = ref.name || `${t('file')} ${i + 1}`;
            return (
              <li key={ref.documentId}>
                <span class="file-name">{name}</span>
                {typeof ref.size === 'number' && <span class="muted small">{fileSize(ref.size)}</span>}
                {props.downloadFrom && (
                  <FileDownload boardId={props.downloadFrom} file={{ documentId: ref.documentId, name }} />
                )}
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}

/**
 * "Baixar" beside a file: a link to it (a viewer's form is a disabled fieldset, which disables buttons, not links)
 * whose click fetches the file with the session's token and saves it; its failure said beside it.
 */
function FileDownload({ boardId, file }: { boardId: string; file: { documentId: string; name: string } }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  return (
    <>
      <a
        href={boardFileUrl(boardId, file.documentId)}
        download={file.name}
        class="btn btn-secondary"
        aria-busy={busy || undefined}
        aria-label={fw('downloadName', { name: file.name })}
        onClick={async (e) => {
          e.preventDefault();
          if (busy) return;
          setBusy(true);
          setError('');
          try {
            await downloadBoardFile(boardId, file);
          } catch (err) {
            setError(fw('downloadFailed', { name: file.name, reason: reason(err) }));
          } finally {
            setBusy(false);
          }
        }}
      >
        {fw('download')}
      </a>
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </>
  );
}

/** The fieldset of a field with one input per option, the field's label as its legend. */
function OptionsFieldset(props: { field: Field; disabled?: boolean; children: ComponentChildren }) {
  return (
    <fieldset class="field" disabled={props.disabled}>
      <legend>
        {props.field.label}
        {props.field.required && <span class="req"> *</span>}
      </legend>
      {props.children}
    </fieldset>
  );
}

function MultiselectField({ field: f, value, onChange, disabled }: FieldInputProps) {
  const list = Array.isArray(value) ? (value as string[]) : [];
  return (
    <OptionsFieldset field={f} disabled={disabled}>
      {optionList(f).map((o) => (
        <label key={o.value} class="inline">
          <input
            type="checkbox"
            name={f.slug}
            value={o.value}
            checked={list.includes(o.value)}
            onChange={(e) =>
              onChange(
                (e.target as HTMLInputElement).checked
                  ? [...list, o.value]
                  : list.filter((x) => x !== o.value),
              )
            }
          />
          {o.label}
        </label>
      ))}
    </OptionsFieldset>
  );
}

function RadioField({ field: f, value, onChange, disabled }: FieldInputProps) {
  const str = value == null ? '' : String(value);
  return (
    <OptionsFieldset field={f} disabled={disabled}>
      {optionList(f).map((o) => (
        <label key={o.value} class="inline">
          <input
            type="radio"
            name={f.slug}
            value={o.value}
            checked={str === o.value}
            onChange={() => onChange(o.value)}
          />
          {o.label}
        </label>
      ))}
    </OptionsFieldset>
  );
}

/** A yes/no field (switch, checkbox): one checkbox, its label beside it. */
function CheckboxField({ field: f, value, onChange, disabled }: FieldInputProps) {
  return (
    <div class="field">
      <label class="inline">
        <input
          {...controlAttrs(f, disabled)}
          type="checkbox"
          checked={value === true || value === 'true'}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
        />
        {f.label}
        {f.required && <span class="req"> *</span>}
      </label>
    </div>
  );
}

function toLocalInput(iso: string) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
