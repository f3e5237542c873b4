import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { Button, toast } from '../../ui';
import { type CardLine, lineRefusal } from './card-lines';
import { LineAmountFields, type LineAmounts, parseLineAmounts } from './LineAmounts';
import { amountText, money, sw } from './shared';

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
  const stored: LineAmounts = {
    quantity: amountText(l.quantity),
    unitPrice: amountText(l.unitPrice),
    discount: amountText(l.discount),
  };
  const [amounts, setAmounts] = useState(stored);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  // A refusal no longer holds once the value changes: it goes until the next save says otherwise.
  const edit = (key: keyof LineAmounts, value: string) => {
    setAmounts({ ...amounts, [key]: value });
    setErrors({});
    setGeneral('');
  };
  const dirty = (Object.keys(stored) as (keyof LineAmounts)[]).some((k) => amounts[k] !== stored[k]);
  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const { values, bad } = parseLineAmounts(amounts, true);
    if (Object.keys(bad).length) return setErrors(bad);
    setBusy(true);
    try {
      const saved = (await unwrap(
        client.PUT('/api/boards/{boardId}/cards/{cardId}/products/{id}', {
          params: { path: { boardId, cardId, id: l.documentId } },
          body: {
            data: {
              quantity: values.quantity,
              unitPrice: values.unitPrice as number,
              discount: values.discount,
            },
          },
        }),
      )) as CardLine;
      toast(sw('lineSaved'));
      await onSaved(saved);
    } catch (err) {
      const onlyDiscount = amounts.unitPrice === stored.unitPrice && amounts.discount !== stored.discount;
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
        <LineAmountFields prefix="line" amounts={amounts} errors={errors} onInput={edit} />
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
