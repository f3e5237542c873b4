import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { client, reason, unwrap } from '../api';
import { CategoryManager } from '../components/sales/CategoryManager';
import { ProductEditor } from '../components/sales/ProductEditor';
import { SalesTabs } from '../components/sales/SalesTabs';
import { money, type Product, sw, useOrgCurrency } from '../components/sales/shared';
import { isAdmin } from '../lib/marketing';
import {
  Badge,
  Button,
  type Column,
  confirmAction,
  DataTable,
  PageHeader,
  Pagination,
  type Sort,
  toast,
} from '../ui';

const PAGE_SIZE = 20;

/** The product catalogue: sorted, paged; admins create, edit and delete products. */
export function ProductsPage() {
  const admin = isAdmin();
  const qc = useQueryClient();
  const currency = useOrgCurrency();
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<Sort>({ key: 'name', dir: 'asc' });
  const [editing, setEditing] = useState<Product | 'new' | null>(null);
  const [error, setError] = useState('');
  const [categories, setCategories] = useState(false);
  const list = useQuery({
    queryKey: ['products', 'page', page, sort.key, sort.dir],
    placeholderData: keepPreviousData,
    queryFn: async () =>
      (await unwrap(
        client.GET('/api/products', {
          params: {
            query: { pagination: { page, pageSize: PAGE_SIZE }, sort: `${sort.key}:${sort.dir}` } as never,
          },
        }),
      )) as unknown as { data: Product[]; meta: { pagination: { pageCount: number } } },
  });
  const remove = async (p: Product) => {
    const ok = await confirmAction({
      title: sw('removeProductTitle'),
      text: sw('removeProductText'),
      confirmLabel: sw('remove'),
      danger: true,
    });
    if (!ok) return;
    setError('');
    try {
      await unwrap(client.DELETE('/api/products/{id}', { params: { path: { id: p.documentId } } }));
      toast(sw('productRemoved'));
      await qc.invalidateQueries({ queryKey: ['products'] });
    } catch (err) {
      setError(reason(err));
    }
  };
  const columns: Column<Product>[] = [
    { key: 'name', label: sw('name'), sortable: true, render: (p) => <strong>{p.name}</strong> },
    { key: 'sku', label: sw('sku'), sortable: true, render: (p) => <code>{p.sku}</code> },
    { key: 'category', label: sw('category'), render: (p) => p.category?.name ?? '—' },
    {
      key: 'price',
      label: sw('price'),
      sortable: true,
      numeric: true,
      render: (p) => (
        <>
          {money(p.price, currency)}
          {p.unit && <span class="muted"> / {p.unit}</span>}
        </>
      ),
    },
    {
      key: 'minPrice',
      label: sw('minPrice'),
      numeric: true,
      render: (p) => (p.minPrice == null ? '—' : money(p.minPrice, currency)),
    },
    {
      key: 'active',
      label: sw('state'),
      render: (p) => <Badge tone={p.active ? 'success' : 'neutral'}>{p.active ? sw('on') : sw('off')}</Badge>,
    },
    ...(admin
      ? [
          {
            key: 'actions',
            label: sw('actions'),
            render: (p: Product) => (
              <span class="ds-actions">
                <Button
                  variant="secondary"
                  onClick={() => setEditing(p)}
                  aria-label={sw('editOf', { name: p.name })}
                >
                  {sw('edit')}
                </Button>
                <Button
                  variant="ghost"
                  onClick={() => remove(p)}
                  aria-label={sw('removeOf', { name: p.name })}
                >
                  {sw('remove')}
                </Button>
              </span>
            ),
          },
        ]
      : []),
  ];
  return (
    <section class="page mkt" data-testid="products">
      <PageHeader
        title={sw('products')}
        actions={
          admin && (
            <>
              <Button variant="secondary" onClick={() => setCategories(true)}>
                {sw('categories')}
              </Button>
              <Button onClick={() => setEditing('new')}>{sw('newProduct')}</Button>
            </>
          )
        }
      >
        <p class="muted">{sw('productsIntro', { currency })}</p>
      </PageHeader>
      <SalesTabs at="products" />
      {!admin && <p class="muted">{sw('adminsOnlyProducts')}</p>}
      <DataTable
        caption={sw('products')}
        testId="product-list"
        columns={columns}
        rows={list.data?.data}
        loading={list.isLoading}
        rowKey={(p) => p.documentId}
        rowAttrs={(p) => ({ 'data-product-id': p.documentId })}
        sort={sort}
        onSort={(s) => {
          setSort(s);
          setPage(1);
        }}
        empty={sw('productsEmpty')}
        footer={
          <Pagination page={page} pageCount={list.data?.meta.pagination.pageCount ?? 1} onPage={setPage} />
        }
      />
      {(error || list.error) && (
        <p role="alert" class="error">
          {error || reason(list.error)}
        </p>
      )}
      {editing && (
        <ProductEditor
          key={editing === 'new' ? 'new' : editing.documentId}
          product={editing === 'new' ? null : editing}
          currency={currency}
          onClose={() => setEditing(null)}
        />
      )}
      {categories && <CategoryManager onClose={() => setCategories(false)} />}
    </section>
  );
}
