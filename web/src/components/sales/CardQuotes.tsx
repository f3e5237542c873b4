import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { type Card, client, featureOff, reason, unwrap } from '../../api';
import { canWrite } from '../../session';
import { Button, toast } from '../../ui';
import { Link } from '../Link';
import type { CardLine } from './card-lines';
import { QuoteEditor } from './QuoteEditor';
import { money, type Quote, statusWord, sw } from './shared';

/**
 * The card's quotes (read by every member) and, for members and up, a draft quote made from the card's lines, opened
 * in the quote editor. Left out when the plan has no quotes.
 */
export function CardQuotes({ card, lines, currency }: { card: Card; lines: CardLine[]; currency: string }) {
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
