import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { Button, Field, toast } from '../../ui';
import { lineRefusal } from './card-lines';
import { LineAmountFields, type LineAmounts, parseLineAmounts } from './LineAmounts';
import { amountText, money, type Product, sw, useActiveProducts } from './shared';

const blank: LineAmounts = { quantity: '1', unitPrice: '', discount: '0' };

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
  const [amounts, setAmounts] = useState<LineAmounts>(blank);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const searching = search.trim().length >= 2;
  const found = useActiveProducts(searching ? search : '');
  const pick = (p: Product) => {
    setPicked(p);
    setAmounts({ ...amounts, unitPrice: amountText(p.price) });
    setSearch('');
    setErrors({});
  };
  const add = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const { values, bad } = parseLineAmounts(amounts, false);
    if (!picked) bad.product = sw('pickProduct');
    if (Object.keys(bad).length || !picked) return setErrors(bad);
    setBusy(true);
    try {
      await unwrap(
        client.POST('/api/boards/{boardId}/cards/{cardId}/products', {
          params: { path: { boardId, cardId } },
          body: {
            data: {
              product: picked.documentId,
              quantity: values.quantity,
              discount: values.discount,
              ...(values.unitPrice !== null ? { unitPrice: values.unitPrice } : {}),
            },
          },
        }),
      );
      toast(sw('lineAdded'));
      setPicked(null);
      setAmounts(blank);
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
        <LineAmountFields
          prefix="card-product"
          amounts={amounts}
          errors={errors}
          onInput={(key, value) => setAmounts({ ...amounts, [key]: value })}
        />
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
