import { useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, unwrap } from '../../api';
import { findCards, useBoardList } from '../../lib/board-queries';
import { Button } from '../../ui';
import { sw } from './shared';

export interface Picked {
  documentId: string;
  name: string;
}

/** The chosen one with a button to take it out, or "none". */
function Chosen({ picked, onClear }: { picked: Picked | null; onClear: () => void }) {
  return (
    <p class="sales-chosen">
      <strong>{picked ? sw('chosen', { name: picked.name }) : sw('noneChosen')}</strong>{' '}
      {picked && (
        <Button variant="ghost" onClick={onClear}>
          {sw('clear')}
        </Button>
      )}
    </p>
  );
}

/** A contact found by its name, e-mail or phone (the API's `q`, 3 letters or more). */
export function ContactPicker({
  picked,
  onPick,
}: {
  picked: Picked | null;
  onPick: (p: Picked | null) => void;
}) {
  const [q, setQ] = useState('');
  const found = useQuery({
    queryKey: ['contact-search', q],
    enabled: q.trim().length >= 3,
    queryFn: async () =>
      (
        await unwrap(
          client.GET('/api/contacts', { params: { query: { q, pagination: { pageSize: 5 } } as never } }),
        )
      ).data as unknown as { documentId: string; name: string; email: string | null }[],
  });
  return (
    <fieldset class="sales-picker">
      <legend>{sw('contact')}</legend>
      <Chosen picked={picked} onClear={() => onPick(null)} />
      <label>
        <span class="sr-only">{sw('searchContact')}</span>
        <input
          type="search"
          name="quote-contact-search"
          placeholder={sw('searchContact')}
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
      </label>
      <ul class="plain">
        {q.trim().length >= 3 &&
          found.data?.map((c) => (
            <li key={c.documentId}>
              <button
                type="button"
                class="link"
                onClick={() => {
                  onPick({ documentId: c.documentId, name: c.name });
                  setQ('');
                }}
              >
                {c.name}
                {c.email ? ` · ${c.email}` : ''}
              </button>
            </li>
          ))}
      </ul>
    </fieldset>
  );
}

/** A card found by its title on a board the person picks. */
export function CardPicker({
  picked,
  onPick,
}: {
  picked: Picked | null;
  onPick: (p: Picked | null) => void;
}) {
  const boards = useBoardList();
  const [board, setBoard] = useState('');
  const [q, setQ] = useState('');
  const found = useQuery({
    queryKey: ['card-search', board, q],
    enabled: !!board && q.trim().length >= 2,
    queryFn: () => findCards(board, q, 5),
  });
  return (
    <fieldset class="sales-picker">
      <legend>{sw('card')}</legend>
      <Chosen picked={picked} onClear={() => onPick(null)} />
      <div class="mkt-row">
        <label>
          <span class="sr-only">{sw('board')}</span>
          <select
            name="quote-card-board"
            value={board}
            onChange={(e) => setBoard((e.target as HTMLSelectElement).value)}
          >
            <option value="">{sw('pickBoard')}</option>
            {(boards.data ?? []).map((b) => (
              <option key={b.documentId} value={b.documentId}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span class="sr-only">{sw('searchCard')}</span>
          <input
            type="search"
            name="quote-card-search"
            placeholder={sw('searchCard')}
            disabled={!board}
            value={q}
            onInput={(e) => setQ((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      <ul class="plain">
        {q.trim().length >= 2 &&
          found.data?.map((c) => (
            <li key={c.documentId}>
              <button
                type="button"
                class="link"
                onClick={() => {
                  onPick({ documentId: c.documentId, name: c.title });
                  setQ('');
                }}
              >
                {c.title}
              </button>
            </li>
          ))}
      </ul>
    </fieldset>
  );
}
