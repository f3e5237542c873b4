import { Link } from '../Link';
import { sw } from './shared';

/** Products and quotes: two tabs of one sales area. */
export function SalesTabs({ at }: { at: 'products' | 'quotes' }) {
  return (
    <nav class="mkt-tabs" aria-label={sw('tabs')}>
      <Link href="/products" aria-current={at === 'products' ? 'page' : undefined}>
        {sw('products')}
      </Link>
      <Link href="/quotes" aria-current={at === 'quotes' ? 'page' : undefined}>
        {sw('quotes')}
      </Link>
    </nav>
  );
}
