import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Board, type Card, client, featureOff, reason, unwrap } from '../../api';
import { getLang } from '../../i18n';
import { canEditCards } from '../../lib/board-access';
import { num } from '../../lib/words';
import { confirmAction, toast } from '../../ui';
import { CardLineAdd } from './CardLineAdd';
import { CardLineEditor, LineName, LineTotal } from './CardLineEditor';
import { CardQuotes } from './CardQuotes';
import type { CardLine } from './card-lines';
import { money, sw } from './shared';

interface CardLines {
  data: CardLine[];
  meta: { totals: { subtotal: number; discount: number; total: number } };
}
interface ProductSettings {
  currency: string;
  enableProducts?: boolean;
  autoUpdateCardValue?: boolean;
}

const pct = (discount: number) =>
  new Intl.NumberFormat(getLang(), { style: 'percent', maximumFractionDigits: 2 }).format(discount / 100);

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
  const writer = canEditCards(board, card) && !!settings.enableProducts;

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
            <CardLineEditor
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
      {writer && <CardLineAdd boardId={boardId} cardId={cardId} currency={currency} onAdded={changed} />}
      <CardQuotes card={card} lines={lines} currency={currency} />
    </section>
  );
}
