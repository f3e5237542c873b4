import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { Button, confirmAction, Dialog, Field, toast } from '../../ui';
import { type Category, sw, useCategories } from './shared';

/** One category: its name to rename in place, and delete after confirming; a refusal at its field. */
function CategoryRow({ category, onChanged }: { category: Category; onChanged: () => Promise<void> }) {
  const [name, setName] = useState(category.name);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const rename = async (e: Event) => {
    e.preventDefault();
    setError('');
    setBusy(true);
    try {
      await unwrap(
        client.PUT('/api/product-categories/{id}', {
          params: { path: { id: category.documentId } },
          body: { data: { name: name.trim() } },
        }),
      );
      toast(sw('categoryRenamed'));
      await onChanged();
    } catch (err) {
      const r = refusalOf(err, ['name']);
      setError(r.fields.name ?? r.general);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    const ok = await confirmAction({
      title: sw('removeCategoryTitle'),
      text: sw('removeCategoryText', { name: category.name }),
      confirmLabel: sw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(
        client.DELETE('/api/product-categories/{id}', { params: { path: { id: category.documentId } } }),
      );
      toast(sw('categoryRemoved'));
      await onChanged();
    } catch (err) {
      setError(reason(err));
    }
  };
  return (
    <li class="sales-category" data-category-id={category.documentId}>
      <form class="mkt-row" noValidate onSubmit={rename}>
        <Field
          label={<span class="sr-only">{sw('categoryNameOf', { name: category.name })}</span>}
          error={error}
        >
          <input
            name="category-name"
            maxLength={120}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </Field>
        <span class="ds-actions">
          <Button
            submit
            variant="secondary"
            busy={busy}
            disabled={!name.trim() || name.trim() === category.name}
            aria-label={sw('renameOf', { name: category.name })}
          >
            {sw('rename')}
          </Button>
          <Button variant="ghost" onClick={remove} aria-label={sw('removeOf', { name: category.name })}>
            {sw('remove')}
          </Button>
        </span>
      </form>
    </li>
  );
}

/** The catalogue's categories (admins): each renamed in place or deleted after confirming. */
export function CategoryManager({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const categories = useCategories();
  // A product shows its category's name: the product list follows a rename or a deletion.
  const changed = async () => {
    await qc.invalidateQueries({ queryKey: ['product-categories'] });
    await qc.invalidateQueries({ queryKey: ['products'] });
  };
  return (
    <Dialog open title={sw('categoriesTitle')} onClose={onClose}>
      <p class="muted small">{sw('categoriesIntro')}</p>
      {categories.data?.length === 0 && <p>{sw('categoriesEmpty')}</p>}
      <ul class="plain sales-categories" data-testid="category-list">
        {(categories.data ?? []).map((c) => (
          <CategoryRow key={`${c.documentId}-${c.name}`} category={c} onChanged={changed} />
        ))}
      </ul>
      {categories.error && (
        <p role="alert" class="error">
          {reason(categories.error)}
        </p>
      )}
    </Dialog>
  );
}
