import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { Button, Field, toast } from '../../ui';
import { type CardLine, lineRefusal } from './card-lines';
import { amountText, money, parseAmount, sw } from './shared';

/** A line's product name and SKU, in the editor and in the read-only row. */
export function LineName({ line: l }: { line: CardLine }) {
  return (
    <span class="sales-line-name">
      <strong>{l.name}</strong> <span class="muted small">{l.sku}</span>
    </span>
  );
}

/** A line's total in the board's currency, in the editor and in the read-only row. */
export function LineTotal({ line: l, currency }: { line: CardLine; currency: string }) {
  return (
    <p class="sales-line-total">
      <span class="muted small">{sw('lineTotal')}</span>{' '}
      <strong data-testid="line-total">{money(l.total, currency)}</strong>
    </p>
  );
}

/** One line as a member changes it: quantity, unit price and discount saved together, a remove button. */
export function CardLineEditor({
  boardId,
  cardId,
  line: l,
  currency,
  onSaved,
  onRemove,
}: {
  boardId: string;
  cardId: string;
  line: CardLine;
  currency: string;
  onSaved: (line: CardLine) => Promise<void>;
  onRemove: () => void;
}) {
  const [quantity, setQuantity] = useState(amountText(l.quantity));
  const [unitPrice, setUnitPrice] = useState(amountText(l.unitPrice));
  const [discount, setDiscount] = useState(amountText(l.discount));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  // A refusal no longer holds once the value changes: it goes until the next save says otherwise.
  const edit = (set: (v: string) => void, e: Event) => {
    set((e.target as HTMLInputElement).value);
    setErrors({});
    setGeneral('');
  };
  const dirty =
    quantity !== amountText(l.quantity) ||
    unitPrice !== amountText(l.unitPrice) ||
    discount !== amountText(l.discount);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const q = parseAmount(quantity);
    const p = parseAmount(unitPrice);
    // An emptied discount is no discount.
    const d = parseAmount(discount) ?? 0;
    const bad: Record<string, string> = {};
    if (q === null || Number.isNaN(q)) bad.quantity = sw('notANumber');
    if (p === null || Number.isNaN(p)) bad.unitPrice = sw('notANumber');
    if (Number.isNaN(d)) bad.discount = sw('notANumber');
    if (Object.keys(bad).length) return setErrors(bad);
    setBusy(true);
    try {
      const saved = (await unwrap(
        client.PUT('/api/boards/{boardId}/cards/{cardId}/products/{id}', {
          params: { path: { boardId, cardId, id: l.documentId } },
          body: { data: { quantity: q as number, unitPrice: p as number, discount: d } },
        }),
      )) as CardLine;
      toast(sw('lineSaved'));
      await onSaved(saved);
    } catch (err) {
      const onlyDiscount = unitPrice === amountText(l.unitPrice) && discount !== amountText(l.discount);
      const r = lineRefusal(err, currency, onlyDiscount ? 'discount' : 'unitPrice');
      setErrors(r.fields);
      setGeneral(r.general);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li data-line-id={l.documentId}>
      <LineName line={l} />
      <form class="sales-line" aria-label={sw('lineOf', { name: l.name })} noValidate onSubmit={save}>
        <Field label={sw('quantity')} error={errors.quantity}>
          <input
            name="line-quantity"
            inputMode="decimal"
            size={6}
            value={quantity}
            onInput={(e) => edit(setQuantity, e)}
          />
        </Field>
        <Field label={sw('unitPrice')} error={errors.unitPrice}>
          <input
            name="line-unit-price"
            inputMode="decimal"
            size={9}
            value={unitPrice}
            onInput={(e) => edit(setUnitPrice, e)}
          />
        </Field>
        <Field label={sw('discount')} error={errors.discount}>
          <input
            name="line-discount"
            inputMode="decimal"
            size={5}
            value={discount}
            onInput={(e) => edit(setDiscount, e)}
          />
        </Field>
        <div class="sales-line-end">
          <LineTotal line={l} currency={currency} />
          {dirty && (
            <Button submit variant="secondary" busy={busy} aria-label={sw('saveLineOf', { name: l.name })}>
              {sw('save')}
            </Button>
          )}
          <Button variant="ghost" onClick={onRemove} aria-label={sw('removeLineOf', { name: l.name })}>
            {sw('clear')}
          </Button>
        </div>
        {general && (
          <p role="alert" class="error sales-line-error">
            {general}
          </p>
        )}
      </form>
    </li>
  );
}
