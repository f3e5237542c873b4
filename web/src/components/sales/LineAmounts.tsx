import { Field } from '../../ui';
import { parseAmount, sw } from './shared';

/** A product line's amounts as typed: quantity, unit price and discount (%). */
export interface LineAmounts {
  quantity: string;
  unitPrice: string;
  discount: string;
}

/**
 * A line form's amounts as numbers, or what keeps them from going, by field. A blank discount is none; a blank unit
 * price is `null` (the product's price when a line is added), refused where a price is needed.
 */
export function parseLineAmounts(a: LineAmounts, priceNeeded: boolean) {
  const quantity = parseAmount(a.quantity);
  const unitPrice = parseAmount(a.unitPrice);
  const discount = parseAmount(a.discount) ?? 0;
  const bad: Record<string, string> = {};
  if (quantity === null || Number.isNaN(quantity)) bad.quantity = sw('notANumber');
  if ((priceNeeded && unitPrice === null) || Number.isNaN(unitPrice)) bad.unitPrice = sw('notANumber');
  if (Number.isNaN(discount)) bad.discount = sw('notANumber');
  return { values: { quantity: quantity as number, unitPrice, discount }, bad };
}

/** The three amount fields of a line form, named `<prefix>-quantity`, `-unit-price` and `-discount`. */
export function LineAmountFields(props: {
  prefix: string;
  amounts: LineAmounts;
  errors: Record<string, string>;
  onInput: (key: keyof LineAmounts, value: string) => void;
}) {
  const field = (key: keyof LineAmounts, name: string, size: number) => (
    <Field label={sw(key)} error={props.errors[key]}>
      <input
        name={`${props.prefix}-${name}`}
        inputMode="decimal"
        size={size}
        value={props.amounts[key]}
        onInput={(e) => props.onInput(key, (e.target as HTMLInputElement).value)}
      />
    </Field>
  );
  return (
    <>
      {field('quantity', 'quantity', 6)}
      {field('unitPrice', 'unit-price', 9)}
      {field('discount', 'discount', 5)}
    </>
  );
}
