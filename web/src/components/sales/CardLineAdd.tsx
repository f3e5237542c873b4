import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { Button, Field, toast } from '../../ui';
import { lineRefusal } from './card-lines';
import { amountText, money, type Product, parseAmount, sw, useActiveProducts } from './shared';

/** A product found in the catalogue by its name or SKU, with quantity, unit price (the product's) and discount. */
export function CardLineAdd({
  boardId,
  cardId,
  currency,
  onAdded,
}: {
  boardId: string;
  cardId: string;
  currency: string;
  onAdded: () => Promise<void>;
}) {
  const [search, setSearch] = useState('');
  const [picked, setPicked] = useState<Product | null>(null);
  const [quantity, setQuantity] = useState('1');
  const [unitPrice, setUnitPrice] = useState('');
  const [discount, setDiscount] = useState('0');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const searching = search.trim().length >= 2;
  const found = useActiveProducts(searching ? search : '');
  const pick = (p: Product) => {
    setPicked(p);
    setUnitPrice(amountText(p.price));
    setSearch('');
    setErrors({});
  };
  const add = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const q = parseAmount(quantity);
    const p = parseAmount(unitPrice);
    const d = parseAmount(discount) ?? 0;
    const bad: Record<string, string> = {};
    if (!picked) bad.product = sw('pickProduct');
    if (q === null || Number.isNaN(q)) bad.quantity = sw('notANumber');
    if (Number.isNaN(p)) bad.unitPrice = sw('notANumber');
    if (Number.isNaN(d)) bad.discount = sw('notANumber');
    if (Object.keys(bad).length || !picked) return setErrors(bad);
    setBusy(true);
    try {
      await unwrap(
        client.POST('/api/boards/{boardId}/cards/{cardId}/products', {
          params: { path: { boardId, cardId } },
          body: {
            data: {
              product: picked.documentId,
              quantity: q as number,
              discount: d,
              ...(p !== null ? { unitPrice: p } : {}),
            },
          },
        }),
      );
      toast(sw('lineAdded'));
      setPicked(null);
      setQuantity('1');
      setUnitPrice('');
      setDiscount('0');
      await onAdded();
    } catch (err) {
      const r = lineRefusal(err, currency);
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="mkt-form card-product-add"
      noValidate
      onSubmit={add}
      aria-labelledby="card-product-add-title"
    >
      <h4 id="card-product-add-title">{sw('addLine')}</h4>
      <div class="mkt-row">
        <fieldset class="sales-picker">
          <legend>{sw('product')}</legend>
          <p class="sales-chosen">
            <strong>
              {picked ? sw('chosen', { name: `${picked.name} · ${picked.sku}` }) : sw('noneChosen')}
            </strong>
          </p>
          <Field label={sw('searchProduct')} error={errors.product}>
            <input
              type="search"
              name="card-product-search"
              autocomplete="off"
              value={search}
              onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
            />
          </Field>
          {searching && found.data && (
            <ul class="plain" data-testid="card-product-results">
              {found.data.slice(0, 8).map((p) => (
                <li key={p.documentId}>
                  <button type="button" class="link" onClick={() => pick(p)}>
                    {p.name} · {p.sku} · {money(p.price, currency)}
                  </button>
                </li>
              ))}
              {found.data.length === 0 && <li class="muted">{sw('noProductFound')}</li>}
            </ul>
          )}
        </fieldset>
      </div>
      <div class="sales-line">
        <Field label={sw('quantity')} error={errors.quantity}>
          <input
            name="card-product-quantity"
            inputMode="decimal"
            size={6}
            value={quantity}
            onInput={(e) => setQuantity((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={sw('unitPrice')} error={errors.unitPrice}>
          <input
            name="card-product-unit-price"
            inputMode="decimal"
            size={9}
            value={unitPrice}
            onInput={(e) => setUnitPrice((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field label={sw('discount')} error={errors.discount}>
          <input
            name="card-product-discount"
            inputMode="decimal"
            size={5}
            value={discount}
            onInput={(e) => setDiscount((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Button submit busy={busy}>
          {sw('addLine')}
        </Button>
      </div>
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
    </form>
  );
}
