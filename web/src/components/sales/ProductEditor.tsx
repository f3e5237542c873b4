import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { refusalOf } from '../../lib/marketing';
import { w } from '../../lib/words';
import { Button, Dialog, Field, toast } from '../../ui';
import { amountText, type Product, parseAmount, sw, useCategories } from './shared';

const FIELDS = ['name', 'sku', 'price', 'minPrice', 'unit', 'description', 'category'];

/** Creates or edits a product (admins): name, SKU, price and minimum, unit, category (a new one too), active. */
export function ProductEditor({
  product,
  currency,
  onClose,
}: {
  product: Product | null;
  currency: string;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const categories = useCategories();
  const [form, setForm] = useState({
    name: product?.name ?? '',
    sku: product?.sku ?? '',
    price: amountText(product?.price),
    minPrice: amountText(product?.minPrice),
    unit: product?.unit ?? '',
    description: product?.description ?? '',
    category: product?.category?.documentId ?? '',
    active: product?.active ?? true,
  });
  const [newCategory, setNewCategory] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });

  const addCategory = async () => {
    if (!newCategory.trim()) return;
    setErrors({});
    try {
      const c = await unwrap(
        client.POST('/api/product-categories', { body: { data: { name: newCategory.trim() } } }),
      );
      await qc.invalidateQueries({ queryKey: ['product-categories'] });
      setForm({ ...form, category: c.documentId });
      setNewCategory('');
      toast(sw('categoryCreated'));
    } catch (err) {
      const r = refusalOf(err, ['name']);
      setErrors({ newCategory: r.fields.name ?? r.general });
    }
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const price = parseAmount(form.price);
    const minPrice = parseAmount(form.minPrice);
    const bad: Record<string, string> = {};
    if (price === null) bad.price = w('fe_required');
    else if (Number.isNaN(price)) bad.price = sw('notANumber');
    if (minPrice !== null && Number.isNaN(minPrice)) bad.minPrice = sw('notANumber');
    if (Object.keys(bad).length) {
      setErrors(bad);
      return;
    }
    setBusy(true);
    const data = {
      name: form.name,
      sku: form.sku,
      price: price as number,
      minPrice,
      unit: form.unit.trim() || null,
      description: form.description.trim() || null,
      category: form.category || null,
      active: form.active,
    };
    try {
      if (product)
        await unwrap(
          client.PUT('/api/products/{id}', { params: { path: { id: product.documentId } }, body: { data } }),
        );
      else await unwrap(client.POST('/api/products', { body: { data } }));
      toast(sw('productSaved'));
      await qc.invalidateQueries({ queryKey: ['products'] });
      onClose();
    } catch (err) {
      const r = refusalOf(err, FIELDS);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      title={product ? sw('editProduct') : sw('newProduct')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {sw('cancel')}
          </Button>
          <Button submit busy={busy} form="product-form">
            {sw('save')}
          </Button>
        </>
      }
    >
      <form id="product-form" class="mkt-form" noValidate onSubmit={save}>
        <Field label={sw('name')} required error={errors.name}>
          <input name="product-name" maxLength={200} value={form.name} onInput={set('name')} />
        </Field>
        <Field label={sw('sku')} required hint={sw('skuHint')} error={errors.sku}>
          <input name="product-sku" maxLength={64} value={form.sku} onInput={set('sku')} />
        </Field>
        <div class="mkt-row">
          <Field label={sw('price')} required hint={sw('priceHint', { currency })} error={errors.price}>
            <input name="product-price" inputMode="decimal" value={form.price} onInput={set('price')} />
          </Field>
          <Field label={sw('minPrice')} hint={sw('minPriceHint')} error={errors.minPrice}>
            <input
              name="product-min-price"
              inputMode="decimal"
              value={form.minPrice}
              onInput={set('minPrice')}
            />
          </Field>
        </div>
        <Field label={sw('unit')} hint={sw('unitHint')} error={errors.unit}>
          <input name="product-unit" maxLength={20} value={form.unit} onInput={set('unit')} />
        </Field>
        <Field label={sw('category')} error={errors.category}>
          <select name="product-category" value={form.category} onChange={set('category')}>
            <option value="">{sw('noCategory')}</option>
            {(categories.data ?? []).map((c) => (
              <option key={c.documentId} value={c.documentId}>
                {c.name}
              </option>
            ))}
          </select>
        </Field>
        <div class="mkt-row sales-new-category">
          <Field label={sw('newCategoryName')} error={errors.newCategory}>
            <input
              name="product-new-category"
              maxLength={120}
              value={newCategory}
              onInput={(e) => setNewCategory((e.target as HTMLInputElement).value)}
            />
          </Field>
          <Button variant="secondary" onClick={addCategory} disabled={!newCategory.trim()}>
            {sw('addCategory')}
          </Button>
        </div>
        <Field label={sw('description')} error={errors.description}>
          <textarea
            name="product-description"
            rows={3}
            maxLength={10_000}
            value={form.description}
            onInput={set('description')}
          />
        </Field>
        <label class="mkt-check">
          <input
            type="checkbox"
            name="product-active"
            checked={form.active}
            onChange={(e) => setForm({ ...form, active: (e.target as HTMLInputElement).checked })}
          />{' '}
          {sw('active')}
        </label>
        <p class="muted small">{sw('activeHint')}</p>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}
