import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { Button, Dialog, Field, toast } from '../../ui';
import { PdfBlockEditor } from './PdfBlockEditor';
import {
  BLOCK_TYPES,
  type BlockDraft,
  type BlockType,
  fromDraft,
  LOCALES,
  newBlock,
  PAGE_SIZES,
  type PdfTemplate,
  type PdfWord,
  PLACEHOLDERS,
  parseNumber,
  placeholderWord,
  pw,
  starterLayout,
  templateRefusal,
  toDraft,
} from './pdf-layout';
import { amountText } from './shared';

/**
 * Creates or edits a PDF template (admins): its name, whether quotes use it by default, the page (size, margin,
 * text size, accent colour) and its blocks, each with its own fields, added, moved and removed. A refusal shows at
 * its field (an unknown placeholder under the text that holds it).
 */
export function PdfTemplateEditor({
  template,
  onClose,
}: {
  template: PdfTemplate | null;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const layout = template?.layout ?? starterLayout();
  const [form, setForm] = useState({
    name: template?.name ?? '',
    isDefault: template?.isDefault ?? false,
    pageSize: layout.pageSize,
    margin: amountText(layout.margin),
    fontSize: amountText(layout.fontSize),
    accentColor: layout.accentColor,
    locale: layout.locale ?? '',
  });
  const [blocks, setBlocks] = useState<BlockDraft[]>(() => layout.blocks.map(toDraft));
  const [adding, setAdding] = useState<BlockType>('text');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  // A block's refusal is keyed by its place: moving or removing blocks takes the block refusals away.
  const reshape = (next: BlockDraft[]) => {
    setBlocks(next);
    setErrors(Object.fromEntries(Object.entries(errors).filter(([k]) => !k.startsWith('blocks'))));
  };
  const move = (i: number, by: -1 | 1) => {
    const next = [...blocks];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    reshape(next);
  };

  const save = async (e: Event) => {
    e.preventDefault();
    const bad: Record<string, string> = {};
    const number = (k: 'margin' | 'fontSize') => {
      const n = parseNumber(form[k]);
      if (n === null || Number.isNaN(n)) bad[`layout.${k}`] = pw('notANumber');
      return n as number;
    };
    const data = {
      name: form.name,
      isDefault: form.isDefault,
      layout: {
        pageSize: form.pageSize,
        margin: number('margin'),
        fontSize: number('fontSize'),
        accentColor: form.accentColor,
        ...(form.locale ? { locale: form.locale } : {}),
        blocks: blocks.map((b, i) => fromDraft(b, i, bad)),
      },
    };
    setErrors(bad);
    if (Object.keys(bad).length) return;
    setBusy(true);
    try {
      if (template)
        await unwrap(
          client.PUT('/api/pdf-templates/{id}', {
            params: { path: { id: template.documentId } },
            body: { data: data as never },
          }),
        );
      else await unwrap(client.POST('/api/pdf-templates', { body: { data: data as never } }));
      toast(pw('saved'));
      await qc.invalidateQueries({ queryKey: ['pdf-templates'] });
      onClose();
    } catch (err) {
      const found = templateRefusal(err);
      setErrors(Object.keys(found).length ? found : { general: reason(err) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      wide
      title={template ? pw('editTemplate') : pw('newTemplate')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {pw('cancel')}
          </Button>
          <Button submit busy={busy} form="pdf-template-form">
            {pw('save')}
          </Button>
        </>
      }
    >
      <form id="pdf-template-form" class="mkt-form" noValidate onSubmit={save}>
        <Field label={pw('name')} required hint={pw('nameHint')} error={errors.name}>
          <input name="template-name" maxLength={120} value={form.name} onInput={set('name')} />
        </Field>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="template-default"
            checked={form.isDefault}
            onChange={(e) => setForm({ ...form, isDefault: (e.target as HTMLInputElement).checked })}
          />{' '}
          {pw('makeDefaultCheck')}
        </label>
        <p class="muted small">{pw('makeDefaultHint')}</p>
        <div class="mkt-row">
          <Field label={pw('pageSize')} error={errors['layout.pageSize']}>
            <select name="template-page-size" value={form.pageSize} onChange={set('pageSize')}>
              {PAGE_SIZES.map((s) => (
                <option key={s} value={s}>
                  {pw(`ps_${s}` as PdfWord)}
                </option>
              ))}
            </select>
          </Field>
          <Field label={pw('margin')} error={errors['layout.margin']}>
            <input
              name="template-margin"
              inputMode="decimal"
              size={6}
              value={form.margin}
              onInput={set('margin')}
            />
          </Field>
          <Field label={pw('fontSize')} error={errors['layout.fontSize']}>
            <input
              name="template-font-size"
              inputMode="decimal"
              size={6}
              value={form.fontSize}
              onInput={set('fontSize')}
            />
          </Field>
          <Field label={pw('locale')} hint={pw('localeHint')} error={errors['layout.locale']}>
            <select name="template-locale" value={form.locale} onChange={set('locale')}>
              {/* A locale set through the API that the list does not name stays as it is. */}
              {[...LOCALES, ...(LOCALES.includes(form.locale as never) ? [] : [form.locale])].map((l) => (
                <option key={l} value={l}>
                  {l === 'pt-BR'
                    ? pw('locale_pt')
                    : l === 'en-US'
                      ? pw('locale_en')
                      : l
                        ? l
                        : pw('locale_none')}
                </option>
              ))}
            </select>
          </Field>
          <Field label={pw('accentColor')} hint={pw('accentHint')} error={errors['layout.accentColor']}>
            <input
              type="color"
              name="template-accent"
              value={form.accentColor}
              onInput={set('accentColor')}
            />
          </Field>
        </div>
        <h3>{pw('blocks')}</h3>
        <details class="pdf-placeholders">
          <summary>{pw('placeholders')}</summary>
          <ul class="plain">
            {PLACEHOLDERS.map((p) => (
              <li key={p}>
                <code>{`{{${p}}}`}</code> {placeholderWord(p)}
              </li>
            ))}
          </ul>
        </details>
        {blocks.map((b, i) => (
          <PdfBlockEditor
            key={b.key}
            block={b}
            index={i}
            count={blocks.length}
            errors={errors}
            onChange={(patch) => setBlocks(blocks.map((x) => (x.key === b.key ? { ...x, ...patch } : x)))}
            onMove={(by) => move(i, by)}
            onRemove={() => reshape(blocks.filter((x) => x.key !== b.key))}
          />
        ))}
        {errors.blocks && (
          <p role="alert" class="error">
            {errors.blocks}
          </p>
        )}
        <div class="mkt-row pdf-add-block">
          <label>
            <span class="sr-only">{pw('newBlockType')}</span>
            <select
              name="template-new-block"
              value={adding}
              onChange={(e) => setAdding((e.target as HTMLSelectElement).value as BlockType)}
            >
              {BLOCK_TYPES.map((t) => (
                <option key={t} value={t}>
                  {pw(`bt_${t}` as PdfWord)}
                </option>
              ))}
            </select>
          </label>
          <Button
            variant="secondary"
            disabled={blocks.length >= 100}
            onClick={() => setBlocks([...blocks, newBlock(adding)])}
          >
            {pw('addBlock')}
          </Button>
        </div>
        {errors.general && (
          <p role="alert" class="error">
            {errors.general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
