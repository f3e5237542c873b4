import type { ComponentChildren } from 'preact';
import { EmptyState } from './EmptyState';
import { Skeleton } from './Skeleton';
import { uw } from './words';

export interface Column<Row> {
  key: string;
  label: string;
  /** The cell; default: the row's value under `key` as text. */
  render?: (row: Row) => ComponentChildren;
  /** Sortable: the header becomes a button; the page passes the API's `sort` (`key:asc`). */
  sortable?: boolean;
  /** Numbers align right. */
  numeric?: boolean;
}

export interface Sort {
  key: string;
  dir: 'asc' | 'desc';
}

interface Props<Row> {
  caption: string;
  columns: Column<Row>[];
  rows: Row[] | undefined;
  rowKey: (row: Row) => string;
  loading?: boolean;
  sort?: Sort;
  onSort?: (sort: Sort) => void;
  empty?: ComponentChildren;
  /** Under the table: pagination, totals. */
  footer?: ComponentChildren;
  /** The table's data-testid (end-to-end tests find it by that). */
  testId?: string;
  /** Attributes of a row (`data-*` ids the tests and links use). */
  rowAttrs?: (row: Row) => Record<string, string>;
}

/**
 * A table of rows with sortable headers (aria-sort), a skeleton while loading and an empty state. On a phone it
 * scrolls inside its own box, never the page.
 */
export function DataTable<Row>({
  caption,
  testId,
  rowAttrs,
  columns,
  rows,
  rowKey,
  loading,
  sort,
  onSort,
  empty,
  footer,
}: Props<Row>) {
  if (loading && !rows) return <Skeleton lines={4} />;
  if (rows && rows.length === 0) return <EmptyState text={empty} />;
  const header = (c: Column<Row>) => {
    if (!c.sortable || !onSort) return c.label;
    const dir = sort?.key === c.key ? sort.dir : undefined;
    return (
      <button
        type="button"
        class="ds-sort"
        onClick={() => onSort({ key: c.key, dir: dir === 'asc' ? 'desc' : 'asc' })}
        title={uw('sortBy', { column: c.label })}
      >
        {c.label}
        <span aria-hidden="true">{dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ''}</span>
      </button>
    );
  };
  return (
    // A box that scrolls sideways on a phone: focusable and named, so a keyboard can scroll it (axe's
    // scrollable-region-focusable).
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus to be scrolled by keys
    <section class="ds-table-box" tabIndex={0} aria-label={caption}>
      <table class="ds-table" data-testid={testId}>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                key={c.key}
                scope="col"
                class={c.numeric ? 'num' : undefined}
                aria-sort={
                  sort?.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined
                }
              >
                {header(c)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((r) => (
            <tr key={rowKey(r)} {...(rowAttrs?.(r) ?? {})}>
              {columns.map((c) => (
                <td key={c.key} class={c.numeric ? 'num' : undefined} data-label={c.label}>
                  {c.render ? c.render(r) : String((r as Record<string, unknown>)[c.key] ?? '')}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {footer}
    </section>
  );
}
