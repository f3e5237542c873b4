import { num } from '../lib/words';
import { Button } from './Button';
import { uw } from './words';

/** Previous / "page 2 of 9" / next, for a list paged by the API (`meta.pagination`). */
export function Pagination({
  page,
  pageCount,
  onPage,
}: {
  page: number;
  pageCount: number;
  onPage: (page: number) => void;
}) {
  if (pageCount <= 1) return null;
  return (
    <nav class="ds-pagination" aria-label={uw('pageOf', { page: num(page), pages: num(pageCount) })}>
      <Button variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {uw('previousPage')}
      </Button>
      <span>{uw('pageOf', { page: num(page), pages: num(pageCount) })}</span>
      <Button variant="secondary" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
        {uw('nextPage')}
      </Button>
    </nav>
  );
}
