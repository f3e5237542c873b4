import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, client, reason, unwrap } from '../../api';
import { getLang } from '../../i18n';
import { fieldMessage } from '../../lib/errors';
import { refusalOf } from '../../lib/marketing';
import { Button, Dialog, Field, toast } from '../../ui';
import { DateInput } from '../DateInput';
import { CardPicker, ContactPicker, type Picked } from './Pickers';
import {
  amountText,
  money,
  parseAmount,
  QUOTE_STATUSES,
  type Quote,
  type QuoteStatus,
  statusWord,
  sw,
  useActiveProducts,
} from './shared';

interface Line {
  key: number;
  product: string;
  quantity: string;
  unitPrice: string;
  discount: string;
}
const CURRENCIES = ['BRL', 'USD', 'EUR'];
const FIELDS = ['title', 'status', 'validUntil', 'currency', 'notes', 'card', 'contact'];
let nextKey = 1;

const cents = (v: number) => Math.round(v * 100) / 100;
/** A line's amounts as the API computes them: quantity × unit price, less the discount percentage. */
function amounts(l: Line) {
  const q = parseAmount(l.quantity) ?? 0;
  const p = parseAmount(l.unitPrice) ?? 0;
  const d = parseAmount(l.discount) ?? 0;
  if ([q, p, d].some(Number.isNaN)) return { gross: 0, off: 0 };
  const gross = cents(q * p);
  return { gross, off: cents((gross * d) / 100) };
}

/**
 * Creates or edits a quote: for whom (a contact, a card), status, validity, currency, notes, and its lines from the
 * catalogue with quantities, unit prices and discounts; the totals follow as the lines change. A refusal of a line
 * (a price below the product's minimum, an inactive product) shows under that line.
 */
export function QuoteEditor({
  quote,
  currency: orgCurrency,
  onClose,
}: {
  quote: Quote | null;
  currency: string;
  onClose: () => void;
}) {
  const qc = useQueryClient();
  const products = useActiveProducts();
  const [form, setForm] = useState({
    title: quote?.title ?? '',
    status: (quote?.status ?? 'draft') as QuoteStatus,
    validUntil: quote?.validUntil?.slice(0, 10) ?? '',
    currency: quote?.currency ?? orgCurrency,
    notes: quote?.notes ?? '',
  });
  const [contact, setContact] = useState<Picked | null>(quote?.contact ?? null);
  const [card, setCard] = useState<Picked | null>(
    quote?.card ? { documentId: quote.card.documentId, name: quote.card.title } : null,
  );
  const [lines, setLines] = useState<Line[]>(
    (quote?.items ?? []).map((i) => ({
      key: nextKey++,
      product: i.product ?? '',
      quantity: amountText(i.quantity),
      unitPrice: amountText(i.unitPrice),
      discount: amountText(i.discount),
    })),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState('');
  const [busy, setBusy] = useState(false);
  const itemsOpen = form.status === 'draft';
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  const setLine = (key: number, patch: Partial<Line>) => {
    setLines(lines.map((l) => (l.key === key ? { ...l, ...patch } : l)));
    // A changed line's refusal no longer holds: it goes until the next save says otherwise.
    const i = lines.findIndex((l) => l.key === key);
    if (errors[`items.${i}`]) setErrors({ ...errors, [`items.${i}`]: '' });
  };
  const pickProduct = (key: number, id: string) => {
    const p = products.data?.find((x) => x.documentId === id);
    setLine(key, { product: id, ...(p ? { unitPrice: amountText(p.price) } : {}) });
  };
  const productOptions = (current: string) => {
    const list = products.data ?? [];
    const line = quote?.items.find((i) => i.product === current);
    // A line of a product now inactive keeps its name in the list (the API refuses it on save, and says so).
    return !current || list.some((p) => p.documentId === current) || !line
      ? list.map((p) => ({ id: p.documentId, label: `${p.name} · ${p.sku}` }))
      : [
          ...list.map((p) => ({ id: p.documentId, label: `${p.name} · ${p.sku}` })),
          { id: current, label: `${line.name} · ${line.sku}` },
        ];
  };
  const totals = lines.reduce(
    (t, l) => {
      const a = amounts(l);
      return { gross: t.gross + a.gross, off: t.off + a.off };
    },
    { gross: 0, off: 0 },
  );

  /** The API's refusal: line errors under their lines (below-minimum prices said with both prices), the rest by field. */
  const showRefusal = (err: unknown) => {
    const out: Record<string, string> = {};
    if (err instanceof ApiError) {
      const below = (err.details?.belowMinPrice ?? []) as {
        index: number;
        sku: string;
        effectiveUnitPrice: number;
        minPrice: number;
      }[];
      for (const b of below)
        out[`items.${b.index}`] = sw('belowMin', {
          n: b.index + 1,
          sku: b.sku,
          price: money(b.effectiveUnitPrice, form.currency),
          min: money(b.minPrice, form.currency),
        });
      const list = (Array.isArray(err.details?.errors) ? err.details.errors : []) as {
        path?: (string | number)[];
        message?: string;
      }[];
      for (const e of list) {
        const [head, i, leaf] = e.path ?? [];
        if (head !== 'items') continue;
        const k = typeof i === 'number' ? `items.${i}` : 'items';
        if (out[k]) continue;
        out[k] =
          leaf === 'product' && /inactive/.test(e.message ?? '')
            ? sw('inactiveItem', { n: Number(i) + 1 })
            : `${typeof i === 'number' ? `${sw('itemN', { n: i + 1 })}: ` : ''}${fieldMessage(e.message)}`;
      }
    }
    const r = refusalOf(err, FIELDS);
    setErrors({ ...r.fields, ...out });
    setGeneral(Object.keys(out).length || Object.keys(r.fields).length ? '' : r.general || reason(err));
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setErrors({});
    setGeneral('');
    const bad: Record<string, string> = {};
    const items = lines.map((l, i) => {
      const quantity = parseAmount(l.quantity);
      const unitPrice = parseAmount(l.unitPrice);
      const discount = parseAmount(l.discount) ?? 0;
      if (!l.product) bad[`items.${i}`] = `${sw('itemN', { n: i + 1 })}: ${sw('pickProduct')}`;
      else if (quantity === null || [quantity, unitPrice ?? 0, discount].some(Number.isNaN))
        bad[`items.${i}`] = `${sw('itemN', { n: i + 1 })}: ${sw('notANumber')}`;
      return {
        product: l.product,
        quantity: quantity as number,
        discount,
        ...(unitPrice !== null ? { unitPrice } : {}),
      };
    });
    if (itemsOpen && Object.keys(bad).length) {
      setErrors(bad);
      return;
    }
    setBusy(true);
    const data = {
      title: form.title.trim() || null,
      status: form.status,
      validUntil: form.validUntil || null,
      currency: form.currency,
      notes: form.notes.trim() || null,
      contact: contact?.documentId ?? null,
      card: card?.documentId ?? null,
      ...(itemsOpen ? { items } : {}),
    };
    try {
      if (quote)
        await unwrap(
          client.PUT('/api/quotes/{id}', { params: { path: { id: quote.documentId } }, body: { data } }),
        );
      else await unwrap(client.POST('/api/quotes', { body: { data } }));
      toast(sw('quoteSaved'));
      await qc.invalidateQueries({ queryKey: ['quotes'] });
      onClose();
    } catch (err) {
      showRefusal(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open
      wide
      title={quote ? sw('editQuote', { number: quote.number }) : sw('newQuote')}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {sw('cancel')}
          </Button>
          <Button submit busy={busy} form="quote-form">
            {sw('save')}
          </Button>
        </>
      }
    >
      <form id="quote-form" class="mkt-form" noValidate onSubmit={save}>
        <Field label={sw('title')} error={errors.title}>
          <input name="quote-title" maxLength={200} value={form.title} onInput={set('title')} />
        </Field>
        <div class="mkt-row">
          <ContactPicker picked={contact} onPick={setContact} />
          <CardPicker picked={card} onPick={setCard} />
        </div>
        {(errors.contact || errors.card) && (
          <p role="alert" class="error">
            {errors.contact || errors.card}
          </p>
        )}
        <div class="mkt-row">
          <Field label={sw('status')} error={errors.status}>
            <select name="quote-status" value={form.status} onChange={set('status')}>
              {QUOTE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusWord(s)}
                </option>
              ))}
            </select>
          </Field>
          <Field label={sw('validUntil')} error={errors.validUntil}>
            <DateInput
              name="quote-valid-until"
              value={form.validUntil}
              onChange={(v) => setForm({ ...form, validUntil: v })}
            />
          </Field>
          <Field label={sw('currency')} error={errors.currency}>
            <select name="quote-currency" value={form.currency} onChange={set('currency')}>
              {[...new Set([form.currency, ...CURRENCIES])].map((c) => (
                <option key={c} value={c}>
                  {currencyName(c)}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <fieldset class="sales-items">
          <legend>{sw('items')}</legend>
          {!itemsOpen && <p class="muted">{sw('itemsFixed')}</p>}
          {lines.length === 0 && <p class="muted">{sw('itemsEmpty')}</p>}
          {lines.map((l, i) => {
            const a = amounts(l);
            const n = i + 1;
            return (
              <div key={l.key} class="sales-line" data-line={n}>
                <Field label={sw('product')}>
                  <select
                    name={`item-${n}-product`}
                    value={l.product}
                    disabled={!itemsOpen}
                    onChange={(e) => pickProduct(l.key, (e.target as HTMLSelectElement).value)}
                  >
                    <option value="">{sw('pickProduct')}</option>
                    {productOptions(l.product).map((p) => (
                      <option key={p.id} value={p.id}>
                        {p.label}
                      </option>
                    ))}
                  </select>
                </Field>
                <Field label={sw('quantity')}>
                  <input
                    name={`item-${n}-quantity`}
                    inputMode="decimal"
                    size={6}
                    value={l.quantity}
                    disabled={!itemsOpen}
                    onInput={(e) => setLine(l.key, { quantity: (e.target as HTMLInputElement).value })}
                  />
                </Field>
                <Field label={sw('unitPrice')}>
                  <input
                    name={`item-${n}-unit-price`}
                    inputMode="decimal"
                    size={9}
                    value={l.unitPrice}
                    disabled={!itemsOpen}
                    onInput={(e) => setLine(l.key, { unitPrice: (e.target as HTMLInputElement).value })}
                  />
                </Field>
                <Field label={sw('discount')}>
                  <input
                    name={`item-${n}-discount`}
                    inputMode="decimal"
                    size={5}
                    value={l.discount}
                    disabled={!itemsOpen}
                    onInput={(e) => setLine(l.key, { discount: (e.target as HTMLInputElement).value })}
                  />
                </Field>
                <div class="sales-line-end">
                  <p class="sales-line-total">
                    <span class="muted small">{sw('lineTotal')}</span>{' '}
                    <strong data-testid={`item-${n}-total`}>{money(a.gross - a.off, form.currency)}</strong>
                  </p>
                  {itemsOpen && (
                    <Button
                      variant="ghost"
                      onClick={() => setLines(lines.filter((x) => x.key !== l.key))}
                      aria-label={sw('removeItem', { n })}
                    >
                      {sw('clear')}
                    </Button>
                  )}
                </div>
                {errors[`items.${i}`] && (
                  <p role="alert" class="error sales-line-error">
                    {errors[`items.${i}`]}
                  </p>
                )}
              </div>
            );
          })}
          {errors.items && (
            <p role="alert" class="error">
              {errors.items}
            </p>
          )}
          {itemsOpen && (
            <Button
              variant="secondary"
              onClick={() =>
                setLines([
                  ...lines,
                  { key: nextKey++, product: '', quantity: '1', unitPrice: '', discount: '0' },
                ])
              }
            >
              {sw('addItem')}
            </Button>
          )}
        </fieldset>
        <dl class="mkt-facts sales-totals" data-testid="quote-totals">
          <dt>{sw('subtotal')}</dt>
          <dd>{money(totals.gross, form.currency)}</dd>
          <dt>{sw('discounts')}</dt>
          <dd>{money(totals.off, form.currency)}</dd>
          <dt>{sw('total')}</dt>
          <dd>
            <strong>{money(totals.gross - totals.off, form.currency)}</strong>
          </dd>
        </dl>
        <Field label={sw('notes')} error={errors.notes}>
          <textarea
            name="quote-notes"
            rows={3}
            maxLength={10_000}
            value={form.notes}
            onInput={set('notes')}
          />
        </Field>
        {general && (
          <p role="alert" class="error">
            {general}
          </p>
        )}
      </form>
    </Dialog>
  );
}

/** A currency's name in the chosen language with its code (Real brasileiro (BRL)). */
function currencyName(code: string) {
  try {
    const name = new Intl.DisplayNames(getLang(), { type: 'currency' }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}
