import { Link } from '../Link';
import { sw } from './shared';

/** Products, quotes and the quotes' PDF templates: tabs of one sales area. */
export function SalesTabs({ at }: { at: 'products' | 'quotes' | 'pdf-templates' }) {
  return (
    <nav class="mkt-tabs" aria-label={sw('tabs')}>
      <Link href="/products" aria-current={at === 'products' ? 'page' : undefined}>
        {sw('products')}
      </Link>
      <Link href="/quotes" aria-current={at === 'quotes' ? 'page' : undefined}>
        {sw('quotes')}
      </Link>
      <Link href="/pdf-templates" aria-current={at === 'pdf-templates' ? 'page' : undefined}>
        {sw('pdfTemplates')}
      </Link>
    </nav>
  );
}
