import { t } from '../i18n';
import { Link } from './Link';

export function NotFound() {
  return (
    <section class="page" data-testid="not-found">
      <h1>{t('notFound')}</h1>
      <p>{t('notFoundText')}</p>
      <Link href="/boards">{t('boards')}</Link>
    </section>
  );
}
