import type { Field } from '../api';
import { t } from '../i18n';

const optionList = (f: Field) => f.options.map((o) => (typeof o === 'string' ? { value: o, label: o } : o));

/** One dynamic field, by type; `name` is the field's slug (the public form's contract). */
export function FieldInput(props: {
  field: Field;
  value: unknown;
  onChange: (v: unknown) => void;
  disabled?: boolean;
  onFile?: (file: File) => Promise<unknown>;
}) {
  const { field: f, value, onChange, disabled } = props;
  const id = `f-${f.slug}`;
  const common = {
    id,
    name: f.slug,
    disabled,
    required: f.required,
    'aria-describedby': f.helpText ? `${id}-help` : undefined,
  };
  const str = value == null ? '' : String(value);
  const text = (type: string) => (
    <input
      {...common}
      type={type}
      placeholder={f.placeholder ?? undefined}
      value={str}
      onInput={(e) => onChange((e.target as HTMLInputElement).value)}
    />
  );
  let input: any;
  switch (f.type) {
    case 'textarea':
    case 'richtext':
      input = (
        <textarea
          {...common}
          rows={3}
          value={str}
          onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
        />
      );
      break;
    case 'number':
    case 'currency':
      input = (
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
      break;
    case 'email':
      input = text('email');
      break;
    case 'url':
      input = text('url');
      break;
    case 'phone':
      input = text('tel');
      break;
    case 'date':
      input = text('date');
      break;
    case 'time':
      input = text('time');
      break;
    case 'datetime':
      input = (
        <input
          {...common}
          type="datetime-local"
          value={str ? toLocalInput(str) : ''}
          onInput={(e) => {
            const v = (e.target as HTMLInputElement).value;
            onChange(v ? new Date(v).toISOString() : null);
          }}
        />
      );
      break;
    case 'select':
      input = (
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
      break;
    case 'multiselect': {
      const list = Array.isArray(value) ? (value as string[]) : [];
      return (
        <fieldset class="field" disabled={disabled}>
          <legend>
            {f.label}
            {f.required && <span class="req"> *</span>}
          </legend>
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
        </fieldset>
      );
    }
    case 'radio':
      return (
        <fieldset class="field" disabled={disabled}>
          <legend>
            {f.label}
            {f.required && <span class="req"> *</span>}
          </legend>
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
        </fieldset>
      );
    case 'switch':
    case 'checkbox':
      return (
        <div class="field">
          <label class="inline">
            <input
              {...common}
              type="checkbox"
              checked={value === true || value === 'true'}
              onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
            />
            {f.label}
            {f.required && <span class="req"> *</span>}
          </label>
        </div>
      );
    case 'statement':
      return (
        <p class="statement">
          {f.label}
          {f.helpText ? ` — ${f.helpText}` : ''}
        </p>
      );
    case 'file': {
      const files = (Array.isArray(value) ? value : value ? [value] : []) as {
        documentId: string;
        name?: string;
      }[];
      input = (
        <>
          <input
            {...common}
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
            <span class="muted">{files.map((x) => x.name ?? x.documentId).join(', ')}</span>
          )}
        </>
      );
      break;
    }
    case 'card_link':
      input = text('text');
      break;
    case 'hidden':
      return null;
    default:
      input = text('text');
  }
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
      {input}
      {f.helpText && (
        <small id={`${id}-help`} class="muted">
          {f.helpText}
        </small>
      )}
    </div>
  );
}

function toLocalInput(iso: string) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
