import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { ApiError, type Board, type Card, client, featureOff, reason, unwrap } from '../../api';
import { getLang } from '../../i18n';
import { refusalOf } from '../../lib/marketing';
import { num } from '../../lib/words';
import { canWrite } from '../../session';
import { Button, confirmAction, Field, toast } from '../../ui';
import { Link } from '../Link';
import { QuoteEditor } from './QuoteEditor';
import {
  amountText,
  money,
  type Product,
  parseAmount,
  type Quote,
  type QuoteItem,
  statusWord,
  sw,
  useActiveProducts,
} from './shared';

/** A card's product line as the API returns it: a quote item's shape. */
type CardLine = QuoteItem;
interface CardLines {
  data: CardLine[];
  meta: { totals: { subtotal: number; discount: number; total: number } };
}
interface ProductSettings {
  currency: string;
  enableProducts?: boolean;
  autoUpdateCardValue?: boolean;
}

const LINE_FIELDS = ['product', 'quantity', 'unitPrice', 'discount'];
const pct = (discount: number) =>
  new Intl.NumberFormat(getLang(), { style: 'percent', maximumFractionDigits: 2 }).format(discount / 100);

/**
 * The API's refusal of a line: a price below the product's minimum said with both prices (at the discount when only
 * the discount changed: it is what brought the price down), a discount out of 0..100 or with more than two decimals
 * said as the rule, the rest by field.
 */
function lineRefusal(err: unknown, currency: string, belowAt: 'unitPrice' | 'discount' = 'unitPrice') {
  const below = (err instanceof ApiError ? (err.details?.belowMinPrice ?? []) : []) as {
    sku: string;
    effectiveUnitPrice: number;
    minPrice: number;
  }[];
  if (below[0])
    return {
      fields: {
        [belowAt]: sw('belowMinLine', {
          sku: below[0].sku,
          price: money(below[0].effectiveUnitPrice, currency),
          min: money(below[0].minPrice, currency),
        }),
      } as Record<string, string>,
      general: '',
    };
  const r = refusalOf(err, LINE_FIELDS);
  if (r.fields.discount) r.fields.discount = sw('discountRange');
  return r;
}

/**
 * The card's products (boards with products): its lines with their totals in the board's currency; members and up
 * add a product found in the catalogue, change a line's quantity, price and discount, take a line off; a draft quote made from
 * the lines (quotes plan feature) and the card's quotes. Left out on a board without products and no lines.
 */
export function CardProducts({ board, card }: { board: Board; card: Card }) {
  const qc = useQueryClient();
  const boardId = board.documentId;
  const cardId = card.documentId;
  const settings = board.boardSettings as ProductSettings;
  const currency = settings.currency || 'BRL';
  const [error, setError] = useState('');
  const key = ['card-products', boardId, cardId];
  const list = useQuery({
    queryKey: key,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/boards/{boardId}/cards/{cardId}/products', {
          params: { path: { boardId, cardId }, query: { pagination: { pageSize: 100 } } as never },
        }),
      )) as unknown as CardLines,
  });
  if (featureOff(list.error)) return null;
  const lines = list.data?.data ?? [];
  if (!settings.enableProducts && lines.length === 0 && !list.error) return null;
  const writer = canWrite() && !!settings.enableProducts;

  /** After a write: the lines, and the card's value when the board keeps it equal to their total. */
  const changed = async () => {
    await qc.invalidateQueries({ queryKey: key });
    if (settings.autoUpdateCardValue)
      await Promise.all([
        qc.invalidateQueries({ queryKey: ['card', boardId, cardId] }),
        qc.invalidateQueries({ queryKey: ['cards', boardId] }),
        qc.invalidateQueries({ queryKey: ['stats', boardId] }),
      ]);
  };
  const remove = async (l: CardLine) => {
    const ok = await confirmAction({
      title: sw('removeLineTitle'),
      text: sw('removeLineText', { name: l.name }),
      confirmLabel: sw('clear'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(
        client.DELETE('/api/boards/{boardId}/cards/{cardId}/products/{id}', {
          params: { path: { boardId, cardId, id: l.documentId } },
        }),
      );
      toast(sw('lineRemoved'));
      await changed();
    } catch (err) {
      setError(reason(err));
    }
  };
  const totals = list.data?.meta.totals;
  return (
    <section aria-labelledby="card-products-title" data-testid="card-products">
      <h3 id="card-products-title">{sw('products')}</h3>
      {!settings.enableProducts && <p class="muted small">{sw('productsOffBoard')}</p>}
      <ul class="plain">
        {lines.map((l) =>
          writer ? (
            <LineEditor
              key={`${l.documentId}-${l.quantity}-${l.unitPrice}-${l.discount}`}
              boardId={boardId}
              cardId={cardId}
              line={l}
              currency={currency}
              onSaved={async (saved) => {
                // The line as the service answered at once; the totals (and the card's value) read again.
                qc.setQueryData<CardLines>(
                  key,
                  (old) =>
                    old && {
                      ...old,
                      data: old.data.map((x) => (x.documentId === saved.documentId ? saved : x)),
                    },
                );
                await changed();
              }}
              onRemove={() => remove(l)}
            />
          ) : (
            <li key={l.documentId} class="sales-line" data-line-id={l.documentId}>
              <LineName line={l} />
              <span>
                {num(l.quantity)}
                {l.unit ? ` ${l.unit}` : ''} × {money(l.unitPrice, currency)}
                {l.discount > 0 && ` · ${sw('discountOff', { pct: pct(l.discount) })}`}
              </span>
              <LineTotal line={l} currency={currency} />
            </li>
          ),
        )}
        {list.data && lines.length === 0 && <li class="muted">{sw('cardProductsEmpty')}</li>}
      </ul>
      {totals && lines.length > 0 && (
        <dl class="mkt-facts sales-totals" data-testid="card-products-totals">
          <dt>{sw('subtotal')}</dt>
          <dd>{money(totals.subtotal, currency)}</dd>
          <dt>{sw('discounts')}</dt>
          <dd>{money(totals.discount, currency)}</dd>
          <dt>{sw('productsTotal')}</dt>
          <dd>
            <strong>{money(totals.total, currency)}</strong>
          </dd>
        </dl>
      )}
      {(error || (list.error && !featureOff(list.error))) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {writer && <AddLine boardId={boardId} cardId={cardId} currency={currency} onAdded={changed} />}
      <CardQuotes card={card} lines={lines} currency={currency} />
    </section>
  );
}

function LineName({ line: l }: { line: CardLine }) {
  return (
    <span class="sales-line-name">
      <strong>{l.name}</strong> <span class="muted small">{l.sku}</span>
    </span>
  );
}

function LineTotal({ line: l, currency }: { line: CardLine; currency: string }) {
  return (
    <p class="sales-line-total">
      <span class="muted small">{sw('lineTotal')}</span>{' '}
      <strong data-testid="line-total">{money(l.total, currency)}</strong>
    </p>
  );
}

/** One line as a member changes it: quantity, unit price and discount saved together, a remove button. */
function LineEditor({
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

/** A product found in the catalogue by its name or SKU, with quantity, unit price (the product's) and discount. */
function AddLine({
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

/**
 * The card's quotes (read by every member) and, for members and up, a draft quote made from the card's lines, opened
 * in the quote editor. Left out when the plan has no quotes.
 */
function CardQuotes({ card, lines, currency }: { card: Card; lines: CardLine[]; currency: string }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState<Quote | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const quotes = useQuery({
    queryKey: ['quotes', 'card', card.documentId],
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/quotes', {
            params: {
              query: {
                filters: { card: { documentId: { $eq: card.documentId } } },
                sort: 'number:desc',
                pagination: { pageSize: 20 },
              } as never,
            },
          }),
        )
      ).data as unknown as Quote[],
  });
  if (featureOff(quotes.error)) return null;
  const usable = lines.filter((l) => l.product !== null);
  const create = async () => {
    setBusy(true);
    setError('');
    try {
      const quote = (await unwrap(
        client.POST('/api/quotes', {
          body: {
            data: {
              title: card.title,
              status: 'draft',
              currency,
              card: card.documentId,
              ...(card.contact ? { contact: card.contact.documentId } : {}),
              items: usable.map((l) => ({
                product: l.product as string,
                quantity: l.quantity,
                unitPrice: l.unitPrice,
                discount: l.discount,
              })),
            },
          },
        }),
      )) as unknown as Quote;
      toast(sw('quoteCreated', { number: quote.number }));
      if (usable.length < lines.length) setError(sw('quoteLinesLeftOut'));
      await qc.invalidateQueries({ queryKey: ['quotes'] });
      setOpen(quote);
    } catch (err) {
      setError(reason(err));
    } finally {
      setBusy(false);
    }
  };
  const list = quotes.data ?? [];
  return (
    <div class="card-quotes" data-testid="card-quotes">
      {list.length > 0 && (
        <>
          <h4 id="card-quotes-title">{sw('cardQuotes')}</h4>
          <ul class="plain" aria-labelledby="card-quotes-title">
            {list.map((q) => (
              <li key={q.documentId} data-quote-id={q.documentId}>
                <strong>{sw('numberOf', { number: q.number })}</strong>{' '}
                <span class="muted small">
                  {statusWord(q.status)} · {money(q.total, q.currency)}
                </span>
                {canWrite() && (
                  <>
                    {' '}
                    <Button
                      variant="ghost"
                      onClick={() => setOpen(q)}
                      aria-label={sw('editQuoteOf', { number: q.number })}
                    >
                      {sw('edit')}
                    </Button>
                  </>
                )}
              </li>
            ))}
          </ul>
          <p class="small">
            <Link href="/quotes">{sw('allQuotes')}</Link>
          </p>
        </>
      )}
      {canWrite() && usable.length > 0 && (
        <>
          <Button variant="secondary" busy={busy} onClick={create}>
            {sw('createQuote')}
          </Button>
          <p class="muted small">{sw('createQuoteHint')}</p>
        </>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {open && (
        <QuoteEditor key={open.documentId} quote={open} currency={currency} onClose={() => setOpen(null)} />
      )}
    </div>
  );
}
