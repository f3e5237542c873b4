import { useState } from 'preact/hooks';
import { type Board, client, type Tag, unwrap } from '../../api';
import { inkOn } from '../../lib/contrast';
import { refusalOf } from '../../lib/marketing';
import { Button, confirmAction, Field, toast } from '../../ui';
import { bw, colorInput, structureRefusal, useStructureRefresh } from './shared';

/** A tag as the cards show it: its colour behind, black or white text, whichever reads (lib/contrast.ts). */
export function TagChip({ name, color }: { name: string; color: string }) {
  return (
    <span class="be-chip" style={{ background: color, color: inkOn(color) }}>
      {name || '…'}
    </span>
  );
}

/** The board's tags: name and colour (previewed as on a card), saved, deleted, added. */
export function TagsSection({ board: b }: { board: Board }) {
  return (
    <section class="be-section" id="be-tags" aria-labelledby="be-tags-h">
      <h2 id="be-tags-h">{bw('secTags')}</h2>
      <p class="muted">{bw('tagsIntro')}</p>
      {b.tags.length === 0 && <p class="muted">{bw('noTags')}</p>}
      <ul class="be-list">
        {b.tags.map((t) => (
          <TagRow key={`${t.documentId}-${t.name}-${t.color}`} board={b} tag={t} />
        ))}
      </ul>
      <TagForm board={b} tag={null} />
    </section>
  );
}

function TagRow({ board: b, tag }: { board: Board; tag: Tag }) {
  const refresh = useStructureRefresh(b.documentId);
  const [error, setError] = useState('');
  const remove = async () => {
    const ok = await confirmAction({
      title: bw('deleteTagTitle', { name: tag.name }),
      text: bw('deleteTagText'),
      confirmLabel: bw('delete'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(
        client.DELETE('/api/boards/{boardId}/tags/{id}', {
          params: { path: { boardId: b.documentId, id: tag.documentId } },
        }),
      );
      toast(bw('tagDeleted', { name: tag.name }));
      await refresh();
    } catch (err) {
      setError(structureRefusal(err, b));
    }
  };
  return (
    <li class="be-item">
      <TagForm board={b} tag={tag} onRemove={remove} />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </li>
  );
}

/** One tag's name and colour (a new one when `tag` is null). */
function TagForm({ board: b, tag, onRemove }: { board: Board; tag: Tag | null; onRemove?: () => void }) {
  const refresh = useStructureRefresh(b.documentId);
  const [name, setName] = useState(tag?.name ?? '');
  const [color, setColor] = useState(colorInput(tag?.color ?? '#2563eb'));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const key = tag?.slug ?? 'new';
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    setBusy(true);
    try {
      if (tag)
        await unwrap(
          client.PUT('/api/boards/{boardId}/tags/{id}', {
            params: { path: { boardId: b.documentId, id: tag.documentId } },
            body: { data: { name, color } },
          }),
        );
      else
        await unwrap(
          client.POST('/api/boards/{boardId}/tags', {
            params: { path: { boardId: b.documentId } },
            body: { data: { name, color } },
          }),
        );
      toast(bw('tagSaved', { name }));
      if (!tag) setName('');
      await refresh();
    } catch (err) {
      const r = refusalOf(err, ['name', 'color']);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form noValidate class={`be-row${tag ? '' : ' be-new'}`} onSubmit={save} data-tag={key}>
      <TagChip name={name} color={color} />
      <Field label={tag ? bw('tagName') : bw('newTagName')} required={!tag} error={errors.name}>
        <input
          name={`tag-name-${key}`}
          maxLength={80}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </Field>
      <Field label={bw('tagColor')} error={errors.color}>
        <input
          name={`tag-color-${key}`}
          type="color"
          value={color}
          onInput={(e) => setColor((e.target as HTMLInputElement).value)}
        />
      </Field>
      <span class="ds-actions">
        <Button
          submit
          variant={tag ? 'secondary' : 'primary'}
          busy={busy}
          aria-label={tag ? bw('saveTagOf', { name: tag.name }) : undefined}
        >
          {tag ? bw('save') : bw('addTag')}
        </Button>
        {onRemove && tag && (
          <Button variant="ghost" onClick={onRemove} aria-label={bw('deleteTagOf', { name: tag.name })}>
            {bw('delete')}
          </Button>
        )}
      </span>
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
    </form>
  );
}
